/** How long and how much: the full run, or `--quick` for development (under 2 minutes). */
export interface Settings {
  quick: boolean;
  /** Alternating rounds of each scenario and its baseline; figures are medians over them. */
  rounds: number;
  /** Length of one measured run, and of the unmeasured warm-up before a scenario's rounds. */
  seconds: number;
  warmupSeconds: number;
  /** autocannon connections of the throughput scenarios. */
  connections: number;
  /** Concurrent clients of the chat time-to-first-byte loop. */
  chatWorkers: number;
  /** Raw events of the materialisation scenario, spread over `days`. */
  events: number;
  days: number;
  /** Events of the one day re-materialised. */
  dayEvents: number;
  /** News articles added for the build scenario. */
  articles: number;
}

export function settingsFor(quick: boolean): Settings {
  return quick
    ? { quick, rounds: 1, seconds: 2, warmupSeconds: 0.5, connections: 50, chatWorkers: 10, events: 1_000_000, days: 400, dayEvents: 30_000, articles: 1_000 }
    : { quick, rounds: 3, seconds: 10, warmupSeconds: 2, connections: 50, chatWorkers: 10, events: 10_000_000, days: 400, dayEvents: 30_000, articles: 1_000 };
}
