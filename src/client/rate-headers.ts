/**
 * What a data-interface response says about the limits, read from its headers (docs/interface.md
 * section 6): X-RateLimit-Remaining (requests left in the minute window), X-RateLimit-Reset (Unix
 * time in seconds, GitHub-style, at which that window is full again), X-Daily-Quota-Remaining
 * (requests left in the UTC day), and Retry-After on a 429. Pure: times are handed in.
 */

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

/**
 * Whether a 429 means the daily quota (stop) rather than the minute window (wait and retry).
 * The header is authoritative: a refusal that left no daily quota is one. Without the header
 * (a proxy dropped it), the server's message names the daily quota.
 */
export function isDailyQuotaRefusal(observation: RateObservation, message: string | undefined): boolean {
  if (observation.dayRemaining !== undefined) return observation.dayRemaining === 0;
  return message !== undefined && /daily quota/i.test(message);
}
