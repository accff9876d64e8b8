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
  /** Raw events of the materialization scenario, spread over `days`. */
  events: number;
  days: number;
  /** Events of the one day re-materialized. */
  dayEvents: number;
  /** News articles added for the build scenario. */
  articles: number;
  scale: ScaleSettings;
}

/** The scale scenario (scenarios/scale.ts). */
export interface ScaleSettings {
  /** Generated news articles of each site measured, smallest first (each built once). */
  sizes: number[];
  /** Server starts per size: start-up time and idle RSS are their medians. */
  starts: number;
  /** Wait after /healthz first answers before idle RSS is read. */
  idleSeconds: number;
  /** Length of each flood of distinct clients. */
  floodSeconds: number;
  /** Wait after a flood before RSS is read again. */
  settleSeconds: number;
  /** Distinct X-Forwarded-For values of the flood. */
  clients: number;
  /** Length of the chat time-to-first-byte run at each size. */
  chatSeconds: number;
}

const FULL_SCALE: ScaleSettings = { sizes: [10, 1_000, 5_000], starts: 3, idleSeconds: 2, floodSeconds: 15, settleSeconds: 30, clients: 100_000, chatSeconds: 5 };
/** Quick: no 5,000-article build (minutes); the 30 s settle stays, the target is stated for it. */
const QUICK_SCALE: ScaleSettings = { sizes: [10, 1_000], starts: 1, idleSeconds: 2, floodSeconds: 5, settleSeconds: 30, clients: 100_000, chatSeconds: 2 };

export function settingsFor(quick: boolean): Settings {
  return quick
    ? { quick, rounds: 1, seconds: 2, warmupSeconds: 0.5, connections: 50, chatWorkers: 10, events: 1_000_000, days: 400, dayEvents: 30_000, articles: 1_000, scale: QUICK_SCALE }
    : { quick, rounds: 3, seconds: 10, warmupSeconds: 2, connections: 50, chatWorkers: 10, events: 10_000_000, days: 400, dayEvents: 30_000, articles: 1_000, scale: FULL_SCALE };
}
