/**
 * The one handler contract. Every endpoint a feature serves is an `Endpoint`: a function of a
 * plain request (method, normalised URL, headers, the body bytes already read within the route's
 * limit, one deadline and one abort signal) and the feature's own narrow dependencies, answering a
 * plain response whose body may be a stream (the chat reply).
 *
 * Each endpoint is bound to its path once, in the route table (src/server/routes.ts). The edge
 * (src/server/http.ts) calls it directly, having read the body once; under `astro dev` the Astro
 * route is a one-line adapter (src/server/astro-endpoint.ts) that builds the same plain request
 * with `plainRequestOf` below. Plain objects rather than Fetch `Request`/`Response`: Astro's
 * pipeline cost about 250 us a request and a Fetch pair 70-90 us of a 480 us cache miss
 * (undici's body streams; bench/NOTES.md).
 */
import { judgeCors, originSettingsOf, type CorsDecision, type CorsPolicy, type OriginSettings } from './cors-decision.ts';
import { errorResponse, HttpError } from './http-error.ts';
import { answers, endpointMethod, methodNotAllowed, type Method } from './methods.ts';
import { unknownParameters, unknownParametersError } from './query-params.ts';

/** Read access to request headers: Fetch's `Headers` has it, and so has the edge's view of node's. */
export interface HeaderReader {
  /** The field's value, several lines joined with ", " (RFC 9110 section 5.3); null when absent. */
  get(name: string): string | null;
}

export interface PlainRequest {
  /** Never HEAD: a HEAD is answered from the GET (src/lib/methods.ts), with `headOnly` set. */
  method: string;
  /**
   * The client asked HEAD: the caller sends the GET's status and headers without content, so an
   * endpoint may skip work that only makes content (RFC 9110 section 9.3.2).
   */
  headOnly?: boolean;
  /** The normalised target the edge decided on, on the site's own origin. */
  url: URL;
  headers: HeaderReader;
  /** The body, read once within the route's `bodyLimit`; undefined for GET, HEAD and OPTIONS. */
  body: Uint8Array | undefined;
  /**
   * When the answer is due (epoch ms): the route's one deadline, from the request's arrival.
   * Work that can wait on something slow (a database, a lock) takes its budget from here.
   */
  deadline: number;
  /** Aborted when the client goes away; a streamed answer stops producing then. */
  signal: AbortSignal;
}

export interface PlainResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** null: no body (a HEAD, a 304, a 204). A stream is sent as it comes, without Content-Length. */
  body: string | Uint8Array | ReadableStream<Uint8Array> | null;
}

/** A feature's endpoint: plain request and its own dependencies in, plain response out. */
export type Endpoint<Deps> = (request: PlainRequest, deps: Deps) => Promise<PlainResponse>;

/** What the route table says about how an endpoint's request is read. */
export interface EndpointLimits {
  /** Largest body, in bytes. */
  bodyLimit: number;
  /** How long the answer may take, in ms, from the moment the body has been read. */
  deadlineMs: number;
  /** The methods the route declares (src/lib/methods.ts); undefined: any. */
  methods?: readonly Method[] | undefined;
  /** The query parameters the route reads; with `strictQuery`, any other is refused (400). */
  query?: readonly string[];
  strictQuery?: boolean;
  /** The route's CORS policy (src/lib/cors-decision.ts); undefined: none. */
  cors?: CorsPolicy;
}

/** Milliseconds left before the request's deadline, never below 1 (a budget of 0 means "none"). */
export function timeLeft(request: Pick<PlainRequest, 'deadline'>, now = Date.now()): number {
  return Math.max(1, request.deadline - now);
}

/** 413 for a body past the route's limit: the same refusal from the edge and from `plainRequestOf`. */
export function bodyTooLarge(limit: number): HttpError {
  return new HttpError('payload_too_large', {
    detail: `The request body exceeds ${limit} bytes.`,
    resolution: `Send at most ${limit} bytes.`,
    headers: { connection: 'close' },
  });
}

/**
 * A Fetch request as a plain one, after the route's method rule (405 with Allow; a HEAD becomes
 * its GET), its body read within `limits.bodyLimit` (never more is buffered):
 * the Astro adapter's way in under `astro dev`, and the tests' way to call an endpoint directly.
 */
async function plainRequestOf(request: Request, limits: EndpointLimits, cors: CorsDecision): Promise<PlainRequest> {
  const method = request.method;
  if (!answers(limits.methods, method)) throw methodNotAllowed(method, limits.methods);
  if (cors.refusal) throw cors.refusal;
  const url = new URL(request.url);
  const unknown = limits.strictQuery ? unknownParameters(url.searchParams, limits.query ?? []) : undefined;
  if (unknown) throw unknownParametersError(url.pathname, unknown, limits.query ?? []);
  const hasBody = method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';
  const body = hasBody ? await readFetchBody(request, limits.bodyLimit) : undefined;
  return {
    method: endpointMethod(method),
    headOnly: method === 'HEAD',
    url,
    headers: request.headers,
    body,
    // From the moment the body is in, as at the edge (src/server/answer.ts).
    deadline: Date.now() + limits.deadlineMs,
    signal: request.signal,
  };
}

async function readFetchBody(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > limit) throw bodyTooLarge(limit);
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw bodyTooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}

/**
 * An endpoint over Fetch types: the Astro adapter under `astro dev` (src/server/astro-endpoint.ts)
 * and tests that call a feature directly. The same CORS decision as the edge's, with the
 * operator's `origins` (none given: no origin is allowed), in the edge's order: after the method
 * rule, before the body is read. A body past the limit is the 413 the edge would send.
 */
export async function callOverFetch<Deps>(endpoint: Endpoint<Deps>, request: Request, deps: Deps, limits: EndpointLimits, origins: OriginSettings = originSettingsOf(undefined)): Promise<Response> {
  const cors = judgeCors(limits.cors ?? 'none', request.method, limits.methods, request.headers.get('origin') ?? undefined, origins);
  let plain: PlainRequest;
  try {
    plain = await plainRequestOf(request, limits, cors);
  } catch (error) {
    return withHeaders(errorResponse(error, new URL(request.url).pathname), cors.headers);
  }
  if (cors.preflight) return new Response(null, { status: 204, headers: { ...cors.headers, ...cors.preflight } });
  const answer = await endpoint(plain, deps);
  if (plain.headOnly && answer.body instanceof ReadableStream) await answer.body.cancel();
  return fetchResponseOf(answer, plain.headOnly === true, cors.headers);
}

/** A plain answer as a Fetch Response, after the CORS headers; a HEAD's without content. */
function fetchResponseOf(plain: PlainResponse, headOnly: boolean, cors: CorsDecision['headers']): Response {
  return new Response(headOnly ? null : (plain.body as BodyInit | null), { status: plain.status, headers: { ...cors, ...plain.headers } });
}

/** An error response with the CORS headers it does not already carry. */
function withHeaders(response: Response, headers: CorsDecision['headers']): Response {
  for (const name in headers) if (!response.headers.has(name)) response.headers.set(name, headers[name]!);
  return response;
}
