/**
 * Rate-limit response headers (docs/interface.md section 6).
 *
 * Site interface: the three-field form of draft-ietf-httpapi-ratelimit-headers (RateLimit-Limit,
 * RateLimit-Remaining, RateLimit-Reset as separate integer fields; Reset is delta-seconds), for
 * the most constrained window, plus RateLimit-Policy listing every window of the route.
 * Data interface: GitHub-style X-RateLimit-* where Reset is an absolute Unix time in seconds.
 * Opt-in (RATE_LIMIT_DRAFT_HEADERS), both interfaces: the current draft's two structured fields,
 * `RateLimit-Policy` and `RateLimit` (`draftHeaders`).
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

/**
 * The pair of draft-ietf-httpapi-ratelimit-headers-10 (27 September 2025, sections 3 and 4; the
 * revision read when this was written): two Structured Field Lists (RFC 9651) with one member per window,
 * named by a String so that the `RateLimit` item can be matched to its policy:
 *   RateLimit-Policy: "data-minute";q=60;w=60, "data-day";q=5000;w=86400
 *   RateLimit: "data-minute";r=59;t=1, "data-day";r=4999;t=41112
 * `q` is the quota and `w` the window in seconds (constant per client); `r` the requests left
 * and `t` the seconds until that window is full again (until 00:00 UTC for a day). No `pk`
 * (partition key): it would echo the client's address or key id back in every response.
 * This replaces the older `RateLimit-Policy: 60;w=60` syntax that `siteHeaders` writes, since one
 * field cannot carry both; RateLimit-Limit/-Remaining/-Reset stay as they are.
 */
export function draftHeaders(d: Decision): Record<string, string> {
  if (d.windows.length === 0) return {};
  const name = (w: WindowState) => `"${w.window.name}"`; // names are [a-z-]: nothing to escape
  return {
    'RateLimit-Policy': d.windows.map((w) => `${name(w)};q=${w.window.limit};w=${w.window.periodSeconds}`).join(', '),
    RateLimit: d.windows.map((w) => `${name(w)};r=${w.remaining};t=${w.resetSeconds}`).join(', '),
  };
}

/**
 * The decision as it stands once a 304 has given back its day unit(s) (`RateLimitStore.refund`):
 * every UTC-day window has one more request left, never more than its limit. The minute
 * window keeps its charge (a conditional request still costs a connection and a lookup).
 */
export function refundedDecision(d: Decision): Decision {
  return {
    ...d,
    windows: d.windows.map((w) => (w.window.kind === 'utc-day' ? { ...w, remaining: Math.min(w.window.limit, w.remaining + 1) } : w)),
  };
}
