/**
 * How the client paces its requests, pure: from what the limit headers said (rate-headers.ts),
 * whether the next request may go now or how long it waits. Times are plain numbers handed in,
 * so tests drive every decision without waiting.
 */
import { nextUtcMidnight } from '../lib/calendar.ts';
import type { RateObservation } from './rate-headers.ts';

/** What the client knows about the limits, shared by its concurrent requests. */
export interface PacerState {
  /** The latest response's limits; undefined before the first response. */
  observation: RateObservation | undefined;
  /**
   * Requests that may not be counted in `observation` yet: those in flight when it arrived plus
   * every one sent since. Counting in-flight ones is conservative (some were counted already).
   */
  sentSince: number;
  /** Requests in flight right now. */
  inFlight: number;
  /** Lower bound of the minute window's capacity: one more than the most remaining ever seen. */
  limitEstimate: number | undefined;
  /** X-RateLimit-Reset of recent admitted responses, for `intervalFromResets`. */
  resets: readonly number[];
  /** The smallest `intervalFromRefusal` seen. */
  refusalBound: number | undefined;
}

export const INITIAL_PACER_STATE: PacerState = {
  observation: undefined,
  sentSince: 0,
  inFlight: 0,
  limitEstimate: undefined,
  resets: [],
  refusalBound: undefined,
};

/** Admitted resets kept for `intervalFromResets`: enough to average the rounding away. */
export const RESET_HISTORY = 8;

/** The state once a request has been sent. */
export function afterSend(state: PacerState): PacerState {
  return { ...state, sentSince: state.sentSince + 1, inFlight: state.inFlight + 1 };
}

/**
 * Whether `seen` describes the limits as they were BEFORE `current` did: concurrent responses
 * can arrive in another order than the server decided them. Each admitted request lowers the
 * day's remaining quota and pushes the instant the minute bucket is full again one refill
 * later (time passing does not move that instant), so either orders two responses; equal
 * figures (a refusal takes nothing) cannot be told apart and count as news.
 */
export function isOlder(seen: RateObservation, current: RateObservation): boolean {
  const seenDay = Math.floor(seen.serverNowMs / 86_400_000);
  const currentDay = Math.floor(current.serverNowMs / 86_400_000);
  // Across 00:00 UTC the day quota starts over, so only the dates compare.
  if (seenDay !== currentDay) return seenDay < currentDay;
  if (seen.dayRemaining !== undefined && current.dayRemaining !== undefined && seen.dayRemaining !== current.dayRemaining) {
    return seen.dayRemaining > current.dayRemaining;
  }
  return seen.minuteResetS !== undefined && current.minuteResetS !== undefined && seen.minuteResetS < current.minuteResetS;
}

/** The state once a request is over; `seen` is what its response said (undefined: no response, e.g. a network error). */
export function afterResponse(state: PacerState, seen: RateObservation | undefined): PacerState {
  const inFlight = state.inFlight - 1;
  if (seen === undefined) return { ...state, inFlight };
  if (state.observation !== undefined && isOlder(seen, state.observation)) {
    // Overtaken by a later answer, which already counts this request: it no longer needs
    // counting on top. Its figures are out of date; what it says about the refill rate is not.
    const resets = seen.admitted && seen.minuteResetS !== undefined ? [...state.resets, seen.minuteResetS].slice(-RESET_HISTORY) : state.resets;
    return { ...state, inFlight, sentSince: Math.max(0, state.sentSince - 1), resets };
  }
  let { limitEstimate, resets, refusalBound } = state;
  const remaining = seen.minuteRemaining;
  if (remaining !== undefined) {
    // A bucket that was full before this request says nothing about the refill rate before
    // it: start the history of resets afresh.
    if (limitEstimate !== undefined && remaining + 1 >= limitEstimate) resets = [];
    limitEstimate = Math.max(limitEstimate ?? 0, remaining + 1);
  }
  if (seen.admitted && seen.minuteResetS !== undefined) resets = [...resets, seen.minuteResetS].slice(-RESET_HISTORY);
  const fromRefusal = intervalFromRefusal(seen);
  if (fromRefusal !== undefined) refusalBound = Math.min(refusalBound ?? Infinity, fromRefusal);
  return { observation: seen, sentSince: inFlight, inFlight, limitEstimate, resets, refusalBound };
}

/** The best upper bound known of one request's refill time, if any. */
export function tokenIntervalMs(state: PacerState): number | undefined {
  const fromResets = intervalFromResets(state.resets);
  if (fromResets === undefined) return state.refusalBound;
  return state.refusalBound === undefined ? fromResets : Math.min(fromResets, state.refusalBound);
}

export type PaceDecision =
  | { action: 'send' }
  /** Wait this long (or until another response brings news), then decide again. */
  | { action: 'wait'; ms: number }
  /** The daily quota is spent unless a request in flight fails: wait for its response. */
  | { action: 'await-response' }
  /** The daily quota is spent and nothing in flight can change that. */
  | { action: 'quota-spent'; resetsAtMs: number };

/**
 * Slack added to every computed wait: the server's decision and its Date header are a few
 * milliseconds apart, and the two clocks involved tick separately.
 */
export const PACING_MARGIN_MS = 250;

/** The minute window's period: X-RateLimit-* describe "the current time window" of a minute. */
export const MINUTE_MS = 60_000;

/**
 * An upper bound of one request's refill time from the X-RateLimit-Reset of admitted
 * responses. The window is a token bucket: time passing does not move the instant it is full
 * again, each admitted request pushes that instant one refill time later (more if the bucket
 * had filled up in between, or if another client took a request too). So over `n` admitted
 * responses the resets span at least `n - 1` refill times; each is rounded up to the second,
 * hence the extra second.
 */
export function intervalFromResets(resetsS: readonly number[]): number | undefined {
  if (resetsS.length < 2) return undefined;
  const span = Math.max(...resetsS) - Math.min(...resetsS);
  return ((span + 1) * 1000) / (resetsS.length - 1);
}

/**
 * An upper bound of one request's refill time from a 429 alone. With a bucket of `limit`
 * requests per minute, refill time I and a fraction `f` of a request left:
 * Retry-After = (1 - f) * I and time-to-full = (limit - f) * I = 1 min - f * I, so
 * I = Retry-After + 1 min - time-to-full exactly. Both headers are whole seconds and the reset
 * is measured against the Date header (also whole seconds), which can make the right-hand side
 * up to 2 s short: hence the 2 s added. Only with the server's Date: measured against a client
 * clock the result would carry that clock's error.
 */
export function intervalFromRefusal(o: RateObservation): number | undefined {
  if (o.admitted || !o.serverDated || o.retryAfterMs === undefined || o.minuteFullInMs === undefined) return undefined;
  const estimate = o.retryAfterMs + MINUTE_MS - o.minuteFullInMs + 2000;
  return Math.min(MINUTE_MS, Math.max(o.retryAfterMs, estimate));
}

/**
 * Whether the next request may go now, decided BEFORE the server has to refuse it.
 *
 * Daily quota: when the last response left nothing for the requests still uncounted, stop (or
 * wait for an in-flight answer, which may tell otherwise).
 *
 * Minute window: a token bucket that refills continuously (`limit` requests a minute), and
 * X-RateLimit-Reset says when it is *full* again. Waiting for the whole refill each time it
 * runs dry would idle up to a minute when the next request is admitted after `60 / limit`
 * seconds, so the wait is per request instead, using the smallest of three upper bounds of the
 * refill time of one request: time-to-full divided by the requests missing (the capacity is
 * not sent: one more than the most remaining ever seen is a lower bound of it, and one request
 * less is counted for the fraction the header does not report), and the learnt
 * `tokenIntervalMs` (see intervalFromResets, intervalFromRefusal). Upper bounds keep a paced
 * client from being refused. After a 429, Retry-After says exactly when the first request is
 * admitted. Against a server whose window is fixed rather than a bucket the estimate can be
 * early; its 429 and Retry-After then take over.
 */
export function paceDecision(state: PacerState, now: number): PaceDecision {
  const o = state.observation;
  if (o === undefined) return { action: 'send' };
  if (o.dayRemaining !== undefined && o.dayRemaining - state.sentSince <= 0) {
    return state.inFlight > 0 ? { action: 'await-response' } : { action: 'quota-spent', resetsAtMs: nextUtcMidnight(o.serverNowMs) };
  }
  if (o.minuteRemaining === undefined) return { action: 'send' };
  const needed = state.sentSince + 1 - o.minuteRemaining;
  if (needed <= 0) return { action: 'send' };
  // No Reset header: assume the window needs its whole minute.
  const fullInMs = o.minuteFullInMs ?? MINUTE_MS;
  const capacity = Math.max(state.limitEstimate ?? 0, o.minuteRemaining + 1);
  const perRequestMs = Math.min(fullInMs / Math.max(1, capacity - o.minuteRemaining - 1), tokenIntervalMs(state) ?? Infinity);
  const firstMs = o.retryAfterMs ?? perRequestMs;
  const wait = Math.ceil(o.receivedAt + firstMs + (needed - 1) * perRequestMs + PACING_MARGIN_MS - now);
  return wait > 0 ? { action: 'wait', ms: wait } : { action: 'send' };
}
