/**
 * The one HTTP error type and the one place that renders it.
 *
 * Site-interface errors are RFC 9457 problem details (`application/problem+json`) with the
 * spec's required `title`, `status` and `code`; the community data interface answers
 * `{ code, message }` (interface spec section 7). Routes throw or return `HttpError`; nothing
 * builds error JSON by hand.
 */

/** `code` values of site-interface problems. Stable: clients may branch on them. */
export type SiteProblemCode =
  | 'validation_failed'
  | 'malformed_json'
  | 'empty_body'
  | 'unsupported_media_type'
  | 'payload_too_large'
  | 'upstream_unavailable'
  | 'idempotency_key_reused'
  | 'origin_not_allowed'
  | 'rate_limited'
  | 'not_found'
  | 'method_not_allowed'
  | 'internal_error';

/** Data-interface codes (spec section 7): SVC1005 invalid parameter, SVC1010 rate limited. */
export type DataErrorCode = 'SVC1005' | 'SVC1010';

export type ErrorCode = SiteProblemCode | DataErrorCode;

const TITLES: Record<ErrorCode, string> = {
  validation_failed: 'Invalid request',
  malformed_json: 'Malformed JSON',
  empty_body: 'Empty request body',
  unsupported_media_type: 'Unsupported media type',
  payload_too_large: 'Request body too large',
  upstream_unavailable: 'Upstream service unavailable',
  idempotency_key_reused: 'Idempotency key reused',
  origin_not_allowed: 'Origin not allowed',
  rate_limited: 'Too many requests',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  internal_error: 'Internal server error',
  SVC1005: 'invalid request parameter',
  SVC1010: 'rate limit exceeded',
};

export interface HttpErrorInit {
  /** Human-readable explanation specific to this occurrence (RFC 9457 `detail`). */
  detail?: string;
  /** What the caller can do about it. */
  resolution?: string;
  /** Extension members, e.g. `errors` listing each invalid field. */
  extensions?: Record<string, unknown>;
  /** Extra response headers, e.g. Retry-After or Allow. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class HttpError extends Error {
  override name = 'HttpError';
  readonly title: string;
  readonly detail: string | undefined;
  readonly resolution: string | undefined;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  readonly status: number;
  readonly code: ErrorCode;

  constructor(status: number, code: ErrorCode, init: HttpErrorInit = {}) {
    super(init.detail ?? TITLES[code], init.cause === undefined ? undefined : { cause: init.cause });
    this.status = status;
    this.code = code;
    this.title = TITLES[code];
    this.detail = init.detail;
    this.resolution = init.resolution;
    this.extensions = init.extensions ?? {};
    this.headers = init.headers ?? {};
  }
}

/** Which interface's error format a path uses. */
export function interfaceOf(pathname: string): 'data' | 'site' {
  return pathname.startsWith('/api/v1/public/') ? 'data' : 'site';
}

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Anything thrown becomes an HttpError; unknown errors become an opaque 500 (no internals). */
export function toHttpError(error: unknown): HttpError {
  return error instanceof HttpError ? error : new HttpError(500, 'internal_error', { cause: error });
}

/** Serialise an error for the interface that `pathname` belongs to. */
export function renderError(error: HttpError, pathname: string): RenderedError {
  if (interfaceOf(pathname) === 'data') {
    return {
      status: error.status,
      headers: { ...error.headers, 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
      body: JSON.stringify({ code: error.code, message: error.detail ?? error.title }),
    };
  }
  const problem = {
    type: 'about:blank',
    title: error.title,
    status: error.status,
    code: error.code,
    ...(error.detail === undefined ? {} : { detail: error.detail }),
    ...(error.resolution === undefined ? {} : { resolution: error.resolution }),
    ...error.extensions,
  };
  return {
    status: error.status,
    headers: { ...error.headers, 'content-type': 'application/problem+json; charset=utf-8', 'cache-control': 'no-store' },
    body: JSON.stringify(problem),
  };
}

/** The same, as a Fetch Response for Astro endpoints. */
export function errorResponse(error: unknown, pathname: string): Response {
  const { status, headers, body } = renderError(toHttpError(error), pathname);
  return new Response(body, { status, headers });
}
