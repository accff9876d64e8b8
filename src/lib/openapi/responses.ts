/**
 * Responses of the published API, built one way for every operation: a cached read's 200 and
 * 304, and each error status from an `ErrorSpec` (problem+json on the site interface,
 * `{code, message}` on the community data interface, as `renderError` writes them). Every
 * operation gets the 431 the edge answers before any route runs.
 */
import { z } from 'zod';
import type { ZodOpenApiRequestBodyObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { DataError, Problem, type HttpErrorInit, type SiteProblemCode } from '../http-error.ts';
import { JSON_REQUEST_MEDIA_TYPES } from '../media-type.ts';
import type { Window } from '../rate-class.ts';
import { problemExample, siteRateLimitedExample, type Examples } from './examples.ts';
import { BearerChallengeHeaders, CachingHeaders, NoStoreHeaders, PublicCorsHeaders, siteRefusedHeaders } from './headers.ts';

export type HeaderSchema = z.ZodObject<z.ZodRawShape>;
export type Responses = Record<string, ZodOpenApiResponseObject>;

/** Which error format an operation answers in (`interfaceOf` in src/lib/http-error.ts). */
export type ErrorFormat = 'site' | 'data';

/** One error status of one operation. */
export interface ErrorSpec {
  description: string;
  /** Realistic bodies; each `value.code` is a code this status can carry. */
  examples: Examples;
  /** Every code the status can carry, when the examples do not show them all (site only). */
  codes?: readonly SiteProblemCode[];
  /** Extension members the problem adds (site only, RFC 9457 section 3.2). */
  extensions?: z.ZodRawShape;
  /** The status's own headers instead of the operation's (a 429 adds Retry-After). */
  headers?: HeaderSchema;
}

/** A problem body narrowed to what one status of one operation can carry. */
function problemSchema(status: number, codes: readonly string[], extensions: z.ZodRawShape = {}) {
  return Problem.extend({
    status: z.literal(status).meta({ description: 'The HTTP status code of the response.' }),
    code: z.enum(codes as [SiteProblemCode, ...SiteProblemCode[]]).meta({ description: 'Stable machine-readable code; branch on this.' }),
    ...extensions,
  }).meta({ title: 'Problem', description: 'RFC 9457 problem details. Further extension members may be present.' });
}

function dataErrorSchema(codes: readonly string[]) {
  const [code] = codes;
  if (code === undefined || codes.length > 1) throw new Error(`a data-interface status carries exactly one code, not ${codes.join(', ')}`);
  return DataError.extend({ code: z.literal(code).meta({ description: `Always \`${code}\` for this status.` }) }).meta({
    title: 'DataError',
    description: 'Error body of the community data interface.',
  });
}

/** The codes the examples show, in order, each once. */
function exampleCodes(examples: Examples): string[] {
  return [...new Set(Object.values(examples).map((example) => String((example.value as { code?: unknown }).code)))];
}

/** The one builder of an error response; errors are never stored by a cache. */
export function errorResponse(format: ErrorFormat, status: number, spec: ErrorSpec, headers: HeaderSchema): ZodOpenApiResponseObject {
  const codes = spec.codes ?? exampleCodes(spec.examples);
  const media =
    format === 'site'
      ? { 'application/problem+json': { schema: problemSchema(status, codes, spec.extensions), examples: spec.examples } }
      : { 'application/json': { schema: dataErrorSchema(codes), examples: spec.examples } };
  return { description: spec.description, headers: (spec.headers ?? headers).extend(NoStoreHeaders.shape), content: media };
}

/**
 * The error responses of an operation on `pathname`, by status, plus its 431. `headers` are
 * the fields every response of the operation carries (its rate-limit fields).
 */
export function errorResponses(format: ErrorFormat, pathname: string, headers: HeaderSchema, specs: Record<number, ErrorSpec>): Responses {
  const all: Record<number, ErrorSpec> = { ...specs, 431: headersTooLarge(pathname) };
  return Object.fromEntries(Object.entries(all).map(([status, spec]) => [status, errorResponse(format, Number(status), spec, headers)]));
}

/**
 * Node's HTTP parser refuses a request whose request line and header fields pass its 16 KiB
 * limit (`http.maxHeaderSize`), such as a very long query string, before any route or limiter
 * runs (RFC 6585 section 5). The edge answers in the path's error format, without rate-limit
 * fields, and closes the connection.
 */
function headersTooLarge(pathname: string): ErrorSpec {
  return {
    description:
      'Request Header Fields Too Large: the request line and header fields together pass the 16 KiB limit (a very long query string does it). Refused before rate limiting, so without rate-limit fields; the connection is closed.',
    examples: { headers_too_large: { summary: 'Query string over the limit', value: problemExample(pathname, 'headers_too_large') } },
    headers: z.object({}),
  };
}

/**
 * The 405 of a path that answers only `allow` (RFC 9110 section 15.5.6). Known methods pass
 * the limiter first and carry its fields (the `site` class on site paths); methods the edge
 * does not know at all (TRACE, inventions) are refused before it, without them.
 */
export function methodNotAllowed(pathname: string, allow: string, headers: HeaderSchema, init: HttpErrorInit = {}): ErrorSpec {
  return {
    description: `Method Not Allowed: this path answers ${allow} only, as the Allow header says. A method the server does not know at all (TRACE) is refused before rate limiting, without rate-limit fields and with \`Allow: GET, HEAD, POST, OPTIONS\`.`,
    examples: { method_not_allowed: { summary: 'Another method', value: problemExample(pathname, 'method_not_allowed', init) } },
    headers: headers.partial().extend({
      Allow: z.string().meta({ description: 'The methods the path answers (RFC 9110 section 10.2.1).', examples: [allow] }),
    }),
  };
}

/** The site interface's 429 for a route limited by `windows`. */
export function siteRateLimited(windows: readonly Window[], pathname: string): ErrorSpec {
  const scope = windows.at(-1)!.name;
  return {
    description: 'Too Many Requests: a rate limit of this route is used up. Wait Retry-After seconds before retrying; X-RateLimit-Scope names the exhausted window.',
    examples: { rate_limited: { summary: `The ${scope} window is spent`, value: siteRateLimitedExample(scope, 6, pathname) } },
    headers: siteRefusedHeaders(windows),
    extensions: {
      scope: z.enum(windows.map((w) => w.name) as [string, ...string[]]).meta({ description: 'The exhausted window (as X-RateLimit-Scope).' }),
      retryAfter: z.int().min(1).meta({ description: 'Seconds to wait (as Retry-After).' }),
    },
  };
}

/** The data interface's 401: an Authorization header that is not a live API key. */
export function dataUnauthorized(pathname: string, headers: HeaderSchema): ErrorSpec {
  return {
    description:
      'Unauthorized (code `unauthorized`): the Authorization header is not a live API key (unknown, revoked, or not `Bearer adk_...`). Charged to the client address like an anonymous request. Send a live key, or none for anonymous limits.',
    examples: {
      unauthorized: {
        summary: 'Unknown or revoked key',
        value: problemExample(pathname, 'unauthorized', { detail: 'The API key is not valid: it is unknown or has been revoked. Send a live key, or no Authorization header for anonymous limits.' }),
      },
    },
    headers: headers.extend(BearerChallengeHeaders.shape),
  };
}

/** The 400 of a JSON-body operation: bad syntax, no body, or invalid fields listed in `errors`. */
export function invalidBody(description: string, examples: Examples, fieldError: z.ZodType): ErrorSpec {
  return {
    description,
    examples,
    codes: ['validation_failed', 'malformed_json', 'empty_body'],
    extensions: { errors: z.array(fieldError).optional().meta({ description: 'Each invalid field (with validation_failed).' }) },
  };
}

/** The body of a cached read's 200. */
export interface ReadBody {
  description: string;
  schema: z.ZodType;
  example?: unknown;
}

/** 200 and 304 of a public GET with a validator (RFC 9110 sections 8.8.3 and 15.4.5). */
export function cachedRead(headers: HeaderSchema, body: ReadBody): Responses {
  return {
    '200': {
      description: body.description,
      headers: headers.extend(CachingHeaders.shape).extend(PublicCorsHeaders.shape),
      content: { 'application/json': { schema: body.schema, ...(body.example === undefined ? {} : { example: body.example }) } },
    },
    '304': {
      description: 'Not Modified: the copy named in If-None-Match is still current (RFC 9110 section 15.4.5). No body.',
      headers: headers.extend(CachingHeaders.shape),
    },
  };
}

/**
 * A JSON request body as the server reads it (src/lib/json-body.ts): `application/json` or any
 * `application/*+json` type (RFC 6839), so a generated client may send either.
 */
export function jsonRequestBody(schema: z.ZodType, example: unknown): ZodOpenApiRequestBodyObject {
  return { required: true, content: Object.fromEntries(JSON_REQUEST_MEDIA_TYPES.map((type) => [type, { schema, example }])) };
}
