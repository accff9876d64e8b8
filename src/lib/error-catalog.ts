/**
 * Every error code the service answers, defined once: its status, its title (the same for every
 * occurrence, RFC 9457 section 3.1.3) and what a client can do about it by default (an
 * occurrence may say more precisely). Code raises an error by name (`new HttpError(code, ...)`,
 * http-error.ts); docs/interface.md section 5 lists the same table, checked against this one by
 * test/unit/lib/error-catalog.test.ts.
 */

export interface ErrorEntry {
  status: number;
  title: string;
  /** The usual remedy, sent as `resolution` when an occurrence names none. */
  resolution: string;
}

/** Site-interface problems (RFC 9457 `code`). Stable: clients may branch on them. */
export const SITE_PROBLEMS = {
  validation_failed: { status: 400, title: 'Invalid request', resolution: 'Correct what the detail names and send the request again.' },
  malformed_json: { status: 400, title: 'Malformed JSON', resolution: 'Send a well-formed JSON object.' },
  empty_body: { status: 400, title: 'Empty request body', resolution: 'Send a JSON object as the body.' },
  challenge_required: { status: 400, title: 'Proof of work required', resolution: 'Solve the challenge from /api/contact/challenge and send its solution.' },
  challenge_failed: { status: 400, title: 'Proof of work not accepted', resolution: 'Fetch a new challenge, solve it, and send the form again.' },
  challenge_replayed: { status: 400, title: 'Proof of work already used', resolution: 'Fetch a new challenge for each submission.' },
  unauthorized: { status: 401, title: 'Unauthorized', resolution: 'Send a live API key, or no Authorization header for anonymous limits.' },
  origin_not_allowed: { status: 403, title: 'Origin not allowed', resolution: 'Call from a page of an allowed origin.' },
  not_found: { status: 404, title: 'Not found', resolution: 'Check the path against the documentation.' },
  method_not_allowed: { status: 405, title: 'Method not allowed', resolution: 'Use a method the Allow header names.' },
  request_timeout: { status: 408, title: 'Request timeout', resolution: 'Send the whole request promptly.' },
  payload_too_large: { status: 413, title: 'Request body too large', resolution: 'Send a smaller body.' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', resolution: 'Send the body as UTF-8 JSON with Content-Type: application/json.' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused', resolution: 'Use a new Idempotency-Key for each new submission.' },
  rate_limited: { status: 429, title: 'Too many requests', resolution: 'Wait for Retry-After seconds before retrying.' },
  headers_too_large: { status: 431, title: 'Request header fields too large', resolution: 'Send a shorter URL and fewer or smaller headers.' },
  internal_error: { status: 500, title: 'Internal server error', resolution: 'Try again later; if it persists, report the X-Request-Id.' },
  upstream_unavailable: { status: 502, title: 'Upstream service unavailable', resolution: 'Try again in a minute.' },
  service_unavailable: { status: 503, title: 'Service unavailable', resolution: 'Try again in a few seconds.' },
} as const satisfies Record<string, ErrorEntry>;

/** Data-interface codes (`{code, message}`); its other statuses carry the site interface's codes. */
export const DATA_ERRORS = {
  SVC1005: { status: 400, title: 'invalid request parameter', resolution: 'Send startDate and endDate as YYYY-MM-DD, and no other parameter.' },
  SVC1010: { status: 429, title: 'rate limit exceeded', resolution: 'Wait for Retry-After seconds before retrying.' },
} as const satisfies Record<string, ErrorEntry>;

export type SiteProblemCode = keyof typeof SITE_PROBLEMS;
export type DataErrorCode = keyof typeof DATA_ERRORS;
export type ErrorCode = SiteProblemCode | DataErrorCode;

export const ERROR_CATALOG: Readonly<Record<ErrorCode, ErrorEntry>> = { ...SITE_PROBLEMS, ...DATA_ERRORS };

/** The codes as tuples, for zod enums. */
export const SITE_PROBLEM_CODES = Object.keys(SITE_PROBLEMS) as [SiteProblemCode, ...SiteProblemCode[]];
export const DATA_ERROR_CODES = Object.keys(DATA_ERRORS) as [DataErrorCode, ...DataErrorCode[]];
