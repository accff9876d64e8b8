/**
 * CORS answers for credential-less cross-origin callers (Fetch standard, "CORS protocol"), as the
 * one CORS decision (cors-decision.ts) gives them, preflights included, so every response agrees
 * on what a cross-origin page may read.
 */

/**
 * Response headers a cross-origin script may read beyond the CORS-safelisted ones (Fetch
 * standard, "CORS protocol"): the rate-limit fields of both interfaces (docs/interface.md section 6),
 * Retry-After (RFC 9110 section 10.2.3), the request id for support requests, and the validators
 * and Date a client needs to revalidate and to time a reset against the server's clock, Link
 * (RFC 8288), which carries a chat reply's sources, and the data interface's settlement headers.
 * One list, for every route. Listed one by one: `*` is not a wildcard for
 * names in every browser.
 */
export const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  // The current draft's live field (draft-ietf-httpapi-ratelimit-headers-10), when RATE_LIMIT_DRAFT_HEADERS is on.
  'RateLimit',
  'Retry-After',
  'X-RateLimit-Scope',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Daily-Quota-Remaining',
  'X-Request-Id',
  'ETag',
  'Date',
  'Link',
  // Which days of a data response are final and which are not there yet (src/features/stats/settled.ts).
  'X-Data-Settled-Through',
  'X-Data-Missing-Days',
] as const;

/** How long a browser may cache a successful preflight. Chromium caps this at 7200 s. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export interface CorsOptions {
  /** The request's `Origin`, or undefined for same-origin GETs and non-browser clients. */
  origin: string | undefined;
  /** Whether that origin is allowed (decided by the caller, e.g. `checkOrigin` in cors-decision.ts). */
  allowed: boolean;
  /** Extra exposed headers for this route, added to `EXPOSED_HEADERS`. */
  expose?: readonly string[];
}

/**
 * Headers for an actual (non-preflight) response. The allowed origin is echoed rather than `*`
 * because the answer depends on it, so caches are told with `Vary: Origin` (Fetch standard,
 * "CORS protocol and HTTP caches"); the Vary is sent for refused origins too.
 */
export function corsHeaders({ origin, allowed, expose = [] }: CorsOptions): Record<string, string> {
  if (!origin || !allowed) return { vary: 'Origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': [...EXPOSED_HEADERS, ...expose].join(', '),
    vary: 'Origin',
  };
}

export interface PreflightOptions extends CorsOptions {
  /** Methods the route accepts from other origins. */
  methods: readonly string[];
  /** Request headers it accepts beyond the safelisted ones (`content-type` for JSON bodies). */
  headers: readonly string[];
}

/**
 * Headers for a successful `OPTIONS` preflight: the allowed origin, methods and headers and how
 * long to cache the answer. Empty for a refused origin, which makes the browser fail the call.
 */
export function preflightHeaders({ methods, headers, ...cors }: PreflightOptions): Record<string, string> {
  if (!cors.origin || !cors.allowed) return { vary: 'Origin' };
  return {
    ...corsHeaders(cors),
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': headers.join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}
