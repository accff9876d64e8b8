/**
 * The daily quota: a counter of requests in the current UTC day, reset at 00:00 UTC (the data
 * interface's "requests left in the UTC day", docs/interface.md section 6). Pure, injected clock;
 * mirrored by the Redis Lua script (redis-script.ts).
 */
import type { WindowLevel } from './limiter.ts';

export const DAY_MS = 86_400_000;

export interface UtcDayCounterState {
  /** Days since 1970-01-01 UTC (`floor(epochMs / 86 400 000)`); POSIX time has no leap seconds. */
  day: number;
  /** Requests counted in that day. */
  count: number;
}

export function utcDayOf(nowMs: number): number {
  return Math.floor(nowMs / DAY_MS);
}

/**
 * The counter as it stands at `nowMs`: a counter of an earlier day counts as empty. A counter
 * of a later day (the clock stepped back over midnight) is kept, so it is not reset twice.
 */
export function currentDayCount(state: UtcDayCounterState | undefined, nowMs: number): UtcDayCounterState {
  const today = utcDayOf(nowMs);
  if (state === undefined || state.day < today) return { day: today, count: 0 };
  return state;
}

export function dayHasQuota(state: UtcDayCounterState, limit: number): boolean {
  return state.count < limit;
}

export function countRequest(state: UtcDayCounterState): UtcDayCounterState {
  return { day: state.day, count: state.count + 1 };
}

/**
 * The counter after one request charged on `chargedDay` is given back (a 304 Not Modified, which
 * does not spend the daily quota: GitHub's rule). A counter of another day is returned
 * unchanged (the charge went with the day), and a count never goes below 0.
 */
export function refundRequest(state: UtcDayCounterState, chargedDay: number): UtcDayCounterState {
  if (state.day !== chargedDay || state.count <= 0) return state;
  return { day: state.day, count: state.count - 1 };
}

/** Requests left today; both reset and retry are "at the next 00:00 UTC" once the quota is spent. */
export function dayLevel(state: UtcDayCounterState, limit: number, nowMs: number): WindowLevel {
  const untilMidnight = (state.day + 1) * DAY_MS - nowMs;
  return {
    remaining: Math.max(0, limit - state.count),
    resetMs: untilMidnight,
    retryMs: state.count < limit ? 0 : untilMidnight,
  };
}
