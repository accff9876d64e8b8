/**
 * Token-bucket arithmetic, pure: every function takes the time as an argument (an injected
 * clock), so tests drive it with plain numbers and the Redis Lua script can mirror it line by
 * line (see redis-script.ts).
 *
 * Credit is counted in integer *units*: one token is `periodMs` units and the bucket refills at
 * `limit` units per millisecond, which is exactly `limit` tokens per period. Capacity is
 * `limit × periodMs` units. With integer millisecond times every quantity stays an integer, so
 * JavaScript and Lua (both IEEE doubles, exact below 2^53) compute bit-identical results and
 * no rounding can ever mint a token. Limits therefore need `limit × periodMs < 2^53`, i.e.
 * fewer than 2.5 million requests per hour.
 */
import type { WindowLevel } from './limiter.ts';

export interface TokenBucketState {
  /** Credit in units (one token = periodMs units) at `updatedMs`. */
  units: number;
  /** When `units` was measured, in epoch milliseconds. */
  updatedMs: number;
}

/** Capacity in units: `limit` tokens. */
export function bucketCapacity(limit: number, periodMs: number): number {
  return limit * periodMs;
}

/**
 * The bucket as it stands at `nowMs`: refilled for the time elapsed since it was last touched,
 * capped at capacity. A missing bucket is full. A clock that steps backwards refills nothing
 * and keeps the later timestamp, so it can never credit the same interval twice.
 */
export function refillBucket(state: TokenBucketState | undefined, limit: number, periodMs: number, nowMs: number): TokenBucketState {
  const capacity = bucketCapacity(limit, periodMs);
  if (state === undefined) return { units: capacity, updatedMs: nowMs };
  const elapsed = Math.max(0, nowMs - state.updatedMs);
  return { units: Math.min(capacity, state.units + elapsed * limit), updatedMs: Math.max(nowMs, state.updatedMs) };
}

/** True when a whole token is available. */
export function bucketHasToken(state: TokenBucketState, periodMs: number): boolean {
  return state.units >= periodMs;
}

/** The bucket after one token is taken (the caller checked `bucketHasToken`). */
export function takeToken(state: TokenBucketState, periodMs: number): TokenBucketState {
  return { units: state.units - periodMs, updatedMs: state.updatedMs };
}

/**
 * What to report for a bucket: whole tokens left, milliseconds until it is full again, and
 * milliseconds until one token is available (0 when one already is).
 */
export function bucketLevel(state: TokenBucketState, limit: number, periodMs: number, nowMs: number): WindowLevel {
  // Relative to nowMs, not updatedMs: they differ only when the clock stepped backwards.
  const ahead = Math.max(0, state.updatedMs - nowMs);
  const capacity = bucketCapacity(limit, periodMs);
  return {
    remaining: Math.floor(state.units / periodMs),
    resetMs: ahead + Math.ceil((capacity - state.units) / limit),
    retryMs: state.units >= periodMs ? 0 : ahead + Math.ceil((periodMs - state.units) / limit),
  };
}
