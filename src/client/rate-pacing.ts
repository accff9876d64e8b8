/**
 * How the client spends the data interface's limits, pure: reading the limit headers, deciding
 * whether the next request may go now, and how long to back off after a refusal. Times are
 * plain numbers handed in, so tests drive every decision without waiting.
 *
 * The headers (docs/interface.md section 6): X-RateLimit-Remaining (requests left in the minute
 * window), X-RateLimit-Reset (Unix time in seconds, GitHub-style, at which that window is full
 * again), X-Daily-Quota-Remaining (requests left in the UTC day), and Retry-After on a 429.
 */
import { nextUtcMidnight } from '../lib/calendar.ts';

/** What one response said about the limits, with the instants it was said at. */
export interface RateObservation {
  /** The client's monotonic clock (`performance.now()`) when the response arrived. */
  receivedAt: number;
  /** False for a 429: the request was refused and took nothing from any window. */
  admitted: boolean;
  /** X-RateLimit-Remaining: requests the minute window still admits. */
  minuteRemaining?: number;
  /** X-RateLimit-Reset: Unix time (seconds, rounded up) at which the minute window is full again. */
  minuteResetS?: number;
  /** Milliseconds from the response until the minute window is full again (X-RateLimit-Reset minus the server's Date). */
  minuteFullInMs?: number;
  /** X-Daily-Quota-Remaining: requests left in the UTC day. */
  dayRemaining?: number;
  /** Retry-After of a 429, in ms: when this request would have been admitted. */
  retryAfterMs?: number;
  /** The server's wall clock at the response (its Date header), else the client's. */
  serverNowMs: number;
  /** Whether `serverNowMs` came from the server's Date header. */
  serverDated: boolean;
}

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

/** A non-negative integer header, or undefined when absent or malformed. */
function countHeader(headers: Headers, name: string): number | undefined {
  const value = headers.get(name);
  if (value === null || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/** The server's clock from its Date header (RFC 9110 section 6.6.1), if it sent a readable one. */
export function serverDateMs(headers: Headers): number | undefined {
  const value = headers.get('date');
  if (value === null) return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}

/**
 * The limit headers of a response. `wallNowMs` is the client's wall clock, used only when the
 * server sent no Date header (a browser cannot read Date on a cross-origin response unless the
 * server exposes it): measuring the reset against the server's own clock makes pacing immune to
 * a client clock that is off by minutes.
 */
export function readRateHeaders(headers: Headers, status: number, receivedAt: number, wallNowMs: number): RateObservation {
  const dated = serverDateMs(headers);
  const serverNowMs = dated ?? wallNowMs;
  const observation: RateObservation = { receivedAt, admitted: status !== 429, serverNowMs, serverDated: dated !== undefined };
  const minuteRemaining = countHeader(headers, 'x-ratelimit-remaining');
  if (minuteRemaining !== undefined) observation.minuteRemaining = minuteRemaining;
  const resetSeconds = countHeader(headers, 'x-ratelimit-reset');
  if (resetSeconds !== undefined) {
    observation.minuteResetS = resetSeconds;
    observation.minuteFullInMs = Math.max(0, resetSeconds * 1000 - serverNowMs);
  }
  const dayRemaining = countHeader(headers, 'x-daily-quota-remaining');
  if (dayRemaining !== undefined) observation.dayRemaining = dayRemaining;
  if (status === 429) {
    const retryAfterMs = parseRetryAfterMs(headers.get('retry-after'), serverNowMs);
    if (retryAfterMs !== undefined) observation.retryAfterMs = retryAfterMs;
  }
  return observation;
}

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

/**
 * Retry-After (RFC 9110 section 10.2.3) in milliseconds: delay-seconds, or an HTTP-date taken
 * relative to the server's clock. Undefined when absent or unreadable.
 */
export function parseRetryAfterMs(value: string | null, serverNowMs: number): number | undefined {
  if (value === null) return undefined;
  const text = value.trim();
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - serverNowMs);
}

/** Retry policy for refused and failed requests. */
export interface RetryPolicy {
  /** Attempts per window, the first included (default 5). */
  maxAttempts: number;
  /** Upper bound of the first backoff, in ms (default 500); doubles with each attempt. */
  baseDelayMs: number;
  /** Cap of the exponential bound, in ms (default 30 000). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * "Full jitter" backoff (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015): a
 * uniform draw from [0, min(cap, base * 2^(attempt - 1))). The randomness keeps clients that
 * failed together from retrying together. `attempt` is the attempt that just failed, from 1.
 */
export function fullJitterDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * bound);
}

/**
 * The wait before retrying a refused (429) request: at least the server's Retry-After, which
 * says when this request would be admitted, plus full jitter so that concurrent requests
 * refused together do not come back in the same millisecond and split one fresh token between
 * them. Without Retry-After, the jitter alone on an exponential bound.
 */
export function retryDelay(attempt: number, retryAfterMs: number | undefined, policy: RetryPolicy, random: () => number): number {
  return (retryAfterMs ?? 0) + fullJitterDelay(attempt, policy, random);
}

/**
 * Whether a 429 means the daily quota (stop) rather than the minute window (wait and retry).
 * The header is authoritative: a refusal that left no daily quota is one. Without the header
 * (a proxy dropped it), the server's message names the daily quota.
 */
export function isDailyQuotaRefusal(observation: RateObservation, message: string | undefined): boolean {
  if (observation.dayRemaining !== undefined) return observation.dayRemaining === 0;
  return message !== undefined && /daily quota/i.test(message);
}
