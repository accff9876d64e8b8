/**
 * The multi-window rule, pure: a request is admitted only if every window of its route has a
 * request to spare, and then it is charged to all of them; if any is empty it is refused and
 * charged to none, so a refusal consumes nothing. The memory store runs this directly;
 * the Redis Lua script implements the same steps (redis-script.ts).
 */
import type { Decision, WindowLevel, WindowState } from './limiter.ts';
import type { Window } from './policies.ts';
import { bucketHasToken, bucketLevel, refillBucket, takeToken, type TokenBucketState } from './token-bucket.ts';
import { countRequest, currentDayCount, dayHasQuota, dayLevel, type UtcDayCounterState } from './utc-day-counter.ts';

/** What a store keeps per client and window. */
export type WindowRecord = TokenBucketState | UtcDayCounterState;

export interface Evaluation {
  decision: Decision;
  /** Records to store, one per window, when admitted; null when refused (nothing changes). */
  next: WindowRecord[] | null;
}

/** Apply one request at `nowMs` to the stored records (undefined: never seen or expired). */
export function evaluate(windows: readonly Window[], records: readonly (WindowRecord | undefined)[], nowMs: number): Evaluation {
  const current = windows.map((window, i) => {
    const record = records[i];
    const periodMs = window.periodSeconds * 1000;
    return window.kind === 'bucket'
      ? { kind: 'bucket' as const, state: refillBucket(isBucket(record) ? record : undefined, window.limit, periodMs, nowMs) }
      : { kind: 'utc-day' as const, state: currentDayCount(isDayCounter(record) ? record : undefined, nowMs) };
  });
  const allowed = current.every((c, i) => {
    const window = windows[i]!; // same length as current
    return c.kind === 'bucket' ? bucketHasToken(c.state, window.periodSeconds * 1000) : dayHasQuota(c.state, window.limit);
  });
  const after = allowed
    ? current.map((c, i) => {
        const window = windows[i]!; // same length as current
        return c.kind === 'bucket'
          ? { kind: c.kind, state: takeToken(c.state, window.periodSeconds * 1000) }
          : { kind: c.kind, state: countRequest(c.state) };
      })
    : current;
  const levels = after.map((c, i) => {
    const window = windows[i]!; // same length as after
    return c.kind === 'bucket'
      ? bucketLevel(c.state, window.limit, window.periodSeconds * 1000, nowMs)
      : dayLevel(c.state, window.limit, nowMs);
  });
  return {
    decision: decisionFromLevels(windows, levels, allowed),
    next: allowed ? after.map((c) => c.state) : null,
  };
}

/**
 * Round the store's figures into a `Decision`. When refused, the scope is the exhausted window
 * that keeps the request out longest (the first in policy order on a tie), and Retry-After is
 * that wait rounded up to whole seconds, at least 1 (RFC 9110 section 10.2.3 delay-seconds).
 */
export function decisionFromLevels(windows: readonly Window[], levels: readonly WindowLevel[], allowed: boolean): Decision {
  const states: WindowState[] = windows.map((window, i) => {
    const level = levels[i] ?? { remaining: 0, resetMs: 0, retryMs: 0 };
    const resetMs = Math.max(0, level.resetMs);
    return { window, remaining: Math.max(0, level.remaining), resetSeconds: Math.ceil(resetMs / 1000), resetMs };
  });
  if (allowed) return { allowed: true, windows: states };
  let worst = -1;
  let worstRetryMs = 0;
  levels.forEach((level, i) => {
    if (level.retryMs > worstRetryMs) {
      worst = i;
      worstRetryMs = level.retryMs;
    }
  });
  if (worst === -1) {
    // Refused yet nothing reports a wait: only possible if a limit changed between the check
    // and the figures. Blame the emptiest window and ask for the shortest sensible wait.
    worst = states.reduce((best, s, i) => (s.remaining < (states[best]?.remaining ?? Infinity) ? i : best), 0);
  }
  const scope = windows[worst]?.name ?? 'unknown';
  return { allowed: false, windows: states, scope, retryAfterSeconds: Math.max(1, Math.ceil(worstRetryMs / 1000)) };
}

function isBucket(record: WindowRecord | undefined): record is TokenBucketState {
  return record !== undefined && 'units' in record;
}

function isDayCounter(record: WindowRecord | undefined): record is UtcDayCounterState {
  return record !== undefined && 'day' in record;
}
