/**
 * When the outbox tries a delivery again, and when it gives up: a bounded schedule, as Svix and
 * Basin keep one (Svix: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, about a day in all). After the
 * first attempt fails, the next comes after the first delay, and so on; once `attempts` attempts
 * have failed the delivery is `failed` for good (counted, logged, listed), never retried forever.
 * An operator sends it again with `npm run contact:redeliver`, which starts a new round.
 *
 * Jitter only lengthens a delay, by up to 10 % at random (the AWS Architecture Blog,
 * "Exponential Backoff And Jitter", 2015: spread the retries of many deliveries after an outage),
 * so no retry ever comes sooner than the operators' guide says.
 */
import { z } from 'zod';

export interface RetrySchedule {
  /** Attempts in all, the first included, before the delivery is `failed`. */
  attempts: number;
  /** Delays before the 2nd, 3rd... attempt, in ms; the last repeats when `attempts` needs more. */
  delaysMs: readonly number[];
}

/** The documented default: 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h (23 h 42.5 min). */
export const DEFAULT_SCHEDULE_TEXT = '30s,2m,10m,30m,1h,2h,4h,8h,8h';

/** Most a delay is lengthened, as a fraction of it. */
export const JITTER = 0.1;

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;
const DURATION = /^(\d{1,9})(ms|s|m|h)$/;
/** One delay may not exceed a week: beyond that the delivery is stale anyway. */
const MAX_DELAY_MS = 7 * 24 * 3_600_000;

/** `30s` to 30000; undefined when it is not a duration of this form. */
export function parseDuration(text: string): number | undefined {
  const match = DURATION.exec(text.trim());
  if (match === null) return undefined;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms <= MAX_DELAY_MS ? ms : undefined;
}

/** CONTACT_DELIVERY_SCHEDULE: comma-separated durations (`500ms`, `30s`, `2m`, `1h`), one to fifty of them. */
export const ScheduleText = z.string().transform((text, ctx) => {
  const items = text.split(',');
  const delays = items.map(parseDuration);
  if (items.length > 50 || delays.some((d) => d === undefined)) {
    ctx.issues.push({ code: 'custom', input: text, message: `must be 1 to 50 comma-separated durations of at most a week, each a whole number and ms, s, m or h, e.g. "${DEFAULT_SCHEDULE_TEXT}"` });
    return z.NEVER;
  }
  return delays as number[];
});

export const DEFAULT_SCHEDULE: RetrySchedule = { attempts: 10, delaysMs: ScheduleText.parse(DEFAULT_SCHEDULE_TEXT) };

/** The schedule of the settings: attempts default to one more than the delays listed. */
export function retrySchedule(delaysMs: readonly number[] | undefined, attempts: number | undefined): RetrySchedule {
  const delays = delaysMs ?? DEFAULT_SCHEDULE.delaysMs;
  return { attempts: attempts ?? delays.length + 1, delaysMs: delays };
}

/**
 * After `failed` failed attempts of a round (1 for the first), the delay before the next one, or
 * undefined when that was the last and the delivery is given up. `random` in [0, 1) like Math.random.
 */
export function nextDelayMs(failed: number, schedule: RetrySchedule, random: () => number = Math.random): number | undefined {
  if (failed >= schedule.attempts) return undefined;
  const delays = schedule.delaysMs;
  const base = delays[Math.min(Math.max(failed, 1), delays.length) - 1] ?? 0;
  return Math.round(base * (1 + JITTER * random()));
}

/** The longest a round can take from its first attempt to its last (jitter at its most). */
export function longestRoundMs(schedule: RetrySchedule): number {
  let total = 0;
  for (let failed = 1; failed < schedule.attempts; failed += 1) total += nextDelayMs(failed, schedule, () => 1)!;
  return total;
}
