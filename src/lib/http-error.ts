/**
 * The one HTTP error type and the one place that renders it.
 *
 * Site-interface errors are RFC 9457 problem details (`application/problem+json`) with the
 * required `title`, `status` and `code`; the community data interface answers
 * `{ code, message }` (docs/interface.md section 5). Routes throw or return `HttpError`; nothing
 * builds error JSON by hand.
 */
import { z } from 'zod';
import { PATHS } from './paths.ts';
import { ERROR_CATALOG, SITE_PROBLEM_CODES, type ErrorCode } from './error-catalog.ts';

export { DATA_ERROR_CODES, SITE_PROBLEM_CODES, type DataErrorCode, type ErrorCode, type SiteProblemCode } from './error-catalog.ts';

/**
 * The error body of the site interface (docs/interface.md section 5): RFC 9457 problem
 * details as `renderError` writes them. Extension members (RFC 9457 section 3.2) such as
 * `errors` or `retryAfter` may follow, so the object is open. The published OpenAPI document
 * and the contract tests take it from here.
 */
export const Problem = z
  .looseObject({
    type: z.string().optional().meta({
      description: 'A URI reference identifying the problem type; always `about:blank` here, since `code` names the problem (RFC 9457 section 4.2.1).',
      examples: ['about:blank'],
    }),
    title: z.string().meta({
      description: 'Short, human-readable summary of the problem type; the same for every occurrence of a code.',
      examples: ['Invalid request'],
    }),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status code of the response, repeated in the body.', examples: [400] }),
    code: z.enum(SITE_PROBLEM_CODES).meta({
      description: 'Stable machine-readable code of the problem; branch on this rather than on `title`.',
      examples: ['validation_failed'],
    }),
    detail: z.string().optional().meta({
      description: 'Human-readable explanation of this occurrence.',
      examples: ['Work email must be an email address such as ada@example.com.'],
    }),
    resolution: z.string().optional().meta({
      description: 'What the caller can do to succeed.',
      examples: ['Correct the fields listed in errors and send the form again.'],
    }),
  })
  .meta({ description: 'RFC 9457 problem details (`application/problem+json`). Further extension members may be present.' });
export type Problem = z.infer<typeof Problem>;

/** The error body of the community data interface (docs/interface.md section 5). */
export const DataError = z
  .object({
    code: z.string().meta({
      description: "`SVC1005`: a request parameter is invalid; `SVC1010`: rate limit or daily quota exceeded. Other statuses (401, 404, 405, 431, 500, 503) carry the site interface's codes.",
      examples: ['SVC1005'],
    }),
    message: z.string().meta({
      description: 'Human-readable explanation naming the rule or the limit.',
      examples: ['endDate 2026-01-01 is before startDate 2026-01-31'],
    }),
  })
  .meta({ description: 'Error body of the community data interface.' });
export type DataError = z.infer<typeof DataError>;

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

  /** Raised by name: status, title and the default resolution come from the catalog (error-catalog.ts). */
  constructor(code: ErrorCode, init: HttpErrorInit = {}) {
    const entry = ERROR_CATALOG[code];
    // A 4xx is an expected outcome whose stack nobody reads; capturing it was a third of the
    // cost of a 429 answer (bench/NOTES.md).
    const stackTraceLimit = Error.stackTraceLimit;
    if (entry.status < 500) Error.stackTraceLimit = 0;
    super(init.detail ?? entry.title, init.cause === undefined ? undefined : { cause: init.cause });
    Error.stackTraceLimit = stackTraceLimit;
    this.status = entry.status;
    this.code = code;
    this.title = entry.title;
    this.detail = init.detail;
    this.resolution = init.resolution ?? entry.resolution;
    this.extensions = init.extensions ?? {};
    this.headers = init.headers ?? {};
  }
}

/** The two interfaces of the service (docs/interface.md section 1), each with its error format. */
export type ApiInterface = 'data' | 'site';

/**
 * Which interface's error format a path uses: the data prefix itself and everything below it is
 * the community data interface (so `/api/v1/public` and `/api/v1/public/x` answer alike).
 */
export function interfaceOf(pathname: string): ApiInterface {
  return pathname === PATHS.dataPrefix || pathname.startsWith(`${PATHS.dataPrefix}/`) ? 'data' : 'site';
}

export interface RenderedError {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Anything thrown becomes an HttpError; unknown errors become an opaque 500 (no internals). */
export function toHttpError(error: unknown): HttpError {
  return error instanceof HttpError ? error : new HttpError('internal_error', { cause: error });
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
