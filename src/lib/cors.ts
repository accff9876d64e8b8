/**
 * Response headers a cross-origin script may read beyond the CORS-safelisted ones (Fetch
 * standard, "CORS protocol"): the rate-limit fields of both interfaces (interface spec section 8),
 * Retry-After (RFC 9110 section 10.2.3), the request id for support requests, and the validators
 * and Date a client needs to revalidate and to time a reset against the server's clock. One list,
 * used by the edge and by the chat route, so every response agrees. Listed one by one: `*` is not
 * a wildcard for names in every browser.
 */
export const EXPOSED_HEADERS = [
  'RateLimit-Limit',
  'RateLimit-Remaining',
  'RateLimit-Reset',
  'RateLimit-Policy',
  'Retry-After',
  'X-RateLimit-Scope',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'X-Daily-Quota-Remaining',
  'X-Request-Id',
  'ETag',
  'Date',
] as const;
