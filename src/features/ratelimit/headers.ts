/**
 * Rate-limit response headers (interface spec section 8).
 *
 * Site interface: the three-field form of draft-ietf-httpapi-ratelimit-headers (RateLimit-Limit,
 * RateLimit-Remaining, RateLimit-Reset as separate integer fields; Reset is delta-seconds), for
 * the most constrained window, plus RateLimit-Policy listing every window of the route.
 * Data interface: GitHub-style X-RateLimit-* where Reset is an absolute Unix time in seconds.
 */
import type { Decision, WindowState } from './limiter.ts';

/**
 * The window the three RateLimit fields describe. Refused: the exhausted window named by
 * `scope`. Admitted: the one with the fewest requests left; on a tie the one that takes longer
 * to refill, since that is the one a client will run into for longer.
 */
export function headlineWindow(d: Decision): WindowState | undefined {
  if (!d.allowed && d.scope !== undefined) {
    const exhausted = d.windows.find((w) => w.window.name === d.scope);
    if (exhausted) return exhausted;
  }
  let best: WindowState | undefined;
  for (const w of d.windows) {
    if (best === undefined || w.remaining < best.remaining || (w.remaining === best.remaining && w.resetMs > best.resetMs)) best = w;
  }
  return best;
}

/**
 * Headers for every response of `/api/*` and `/sellers.json`. RateLimit-Reset is the number of
 * seconds until the reported window is full again. When refused: Retry-After (seconds until this
 * request would be admitted, RFC 9110 section 10.2.3), X-RateLimit-Scope and Remaining 0.
 */
export function siteHeaders(d: Decision): Record<string, string> {
  const headline = headlineWindow(d);
  if (headline === undefined) return {};
  const headers: Record<string, string> = {
    'RateLimit-Limit': String(headline.window.limit),
    'RateLimit-Remaining': String(d.allowed ? headline.remaining : 0),
    'RateLimit-Reset': String(headline.resetSeconds),
    // e.g. `300;w=60, 10;w=60, 200;w=86400` (the draft's quota-policy items, w in seconds).
    'RateLimit-Policy': d.windows.map((w) => `${w.window.limit};w=${w.window.periodSeconds}`).join(', '),
  };
  if (!d.allowed) {
    headers['Retry-After'] = String(d.retryAfterSeconds ?? 1);
    if (d.scope !== undefined) headers['X-RateLimit-Scope'] = d.scope;
  }
  return headers;
}

/**
 * Headers for every response of the data interface: the minute window's remaining requests and
 * the Unix time (seconds, rounded up so it is never early) at which it is full again, and the
 * requests left in the UTC day. Retry-After when refused.
 */
export function dataHeaders(d: Decision, nowMs: number): Record<string, string> {
  const minute = d.windows.find((w) => w.window.kind === 'bucket');
  const day = d.windows.find((w) => w.window.kind === 'utc-day');
  const headers: Record<string, string> = {};
  if (minute) {
    headers['X-RateLimit-Remaining'] = String(minute.remaining);
    headers['X-RateLimit-Reset'] = String(Math.ceil((nowMs + minute.resetMs) / 1000));
  }
  if (day) headers['X-Daily-Quota-Remaining'] = String(day.remaining);
  if (!d.allowed) headers['Retry-After'] = String(d.retryAfterSeconds ?? 1);
  return headers;
}
