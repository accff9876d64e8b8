/**
 * The pipeline's answering stage for what is not stored bytes: the probes, the endpoint the route
 * table binds (called with the body read once and its deadline), and Astro's handler for pages
 * rendered per request and the paths the edge does not know.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint, HeaderReader, PlainRequest } from '../lib/endpoint.ts';
import { HttpError } from '../lib/http-error.ts';
import { endpointMethod } from '../lib/methods.ts';
import { answerProbe } from '../lib/probes.ts';
import { tapAstro } from './astro-tap.ts';
import { readBody } from './body.ts';
import type { EdgeParts, Exchange } from './exchange.ts';
import { errorAnswer, WRITTEN, type Answer, type PlainAnswer } from './respond.ts';
import type { EndpointDeps } from './routes.ts';

const hasBody = (method: string) => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';

/** A node request's headers as the endpoints read them (Fetch's `Headers.get` semantics). */
function headerReader(headers: IncomingHttpHeaders): HeaderReader {
  return {
    get(name) {
      const value = headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/**
 * Aborts when the client goes away before its answer is finished. Made only when an endpoint
 * reads `signal` (the chat reply does; the data and contact endpoints do not): an AbortController
 * and a close listener per request were garbage every cached-miss data request paid for.
 */
function whenGone(res: ServerResponse): AbortSignal {
  const gone = new AbortController();
  if (res.closed) {
    if (!res.writableFinished) gone.abort();
  } else {
    res.once('close', () => {
      if (!res.writableFinished) gone.abort();
    });
  }
  return gone.signal;
}

export async function probe({ deps }: EdgeParts, x: Exchange): Promise<PlainAnswer> {
  // A failed check is logged where it runs (deps.ready), once per check: a probe flood answered
  // from one remembered failure must not become a log flood.
  const answer = await answerProbe(x.route.path, deps.ready, deps.readyDetails);
  return { kind: 'plain', response: answer, edge: true };
}

/**
 * The route's endpoint, called with the body read once within the route's limit. Its deadline
 * counts from the moment the body is in: the upload itself is bounded by the server's request
 * timeout (http-server.ts), so a slow but honest client is not refused for the database's sake.
 * A HEAD is answered from the GET (the write stage sends no content).
 */
export async function callEndpoint(parts: EdgeParts, x: Exchange, endpoint: Endpoint<EndpointDeps>): Promise<PlainAnswer> {
  const request = await endpointRequest(parts, x);
  return { kind: 'plain', response: await endpoint(request, parts.deps.endpointDeps()), edge: false };
}

/**
 * The request as the endpoint reads it, its deadline counting from now. Its own async function:
 * the Buffer the body arrived in must not stay in `callEndpoint`'s frame while the endpoint
 * works (EndpointRequest says why).
 */
async function endpointRequest({ deps }: EdgeParts, { req, res, method, url, route }: Exchange): Promise<EndpointRequest> {
  const body = hasBody(method) ? await readBody(req, route.bodyLimit) : undefined;
  const target = new URL(`${url.pathname}${url.search}`, `${deps.https ? 'https' : 'http'}://${deps.siteHost()}`);
  return new EndpointRequest(method, target, req.headers, body, Date.now() + route.deadlineMs, res);
}

/**
 * The endpoint's request, its `signal` made on first read. A class, not an object literal with a
 * `get signal()` closing over `res`: V8 puts each such literal's accessor pair in the old
 * generation, so the getter, its closure and through it the whole request and response survived
 * every young-generation collection until the next full one. A contact flood promoted 6 to 12 %
 * of all it allocated and the old generation grew to its next limit (bench/NOTES.md, "Memory
 * round 3"; test/unit/server/answer.memory.test.ts). A getter on the prototype keeps nothing.
 *
 * The body is kept as a one-byte string (latin1: byte n is code unit n, so nothing is lost) and
 * each read of `body` gets the bytes afresh. A Buffer's memory lies outside V8's heap: a request
 * in flight across two young-generation collections is promoted with its body, and promoted
 * outside memory comes back only at a full collection, which outside memory starts only 64 MB
 * past the last one. A contact flood's `arrayBuffers` grew 2 MB/s so, to 33 MB in 15 s
 * (bench/NOTES.md, "Memory round 6"). A string is heap memory, which the heap's own limits
 * collect; the bytes an endpoint reads die with the turn that parsed them.
 */
class EndpointRequest implements PlainRequest {
  readonly method: string;
  readonly headOnly: boolean;
  readonly url: URL;
  readonly headers: HeaderReader;
  readonly deadline: number;
  readonly #body: string | undefined;
  #signal: AbortSignal | undefined;
  readonly #res: ServerResponse;

  constructor(method: string, url: URL, headers: IncomingHttpHeaders, body: Buffer | undefined, deadline: number, res: ServerResponse) {
    this.method = endpointMethod(method);
    this.headOnly = method === 'HEAD';
    this.url = url;
    this.headers = headerReader(headers);
    this.#body = body?.toString('latin1');
    this.deadline = deadline;
    this.#res = res;
  }

  get body(): Uint8Array | undefined {
    const text = this.#body;
    if (text === undefined) return undefined;
    // Memory of its own, not a slice of node's shared pool (which would hold a 64 KiB slab).
    const bytes = Buffer.allocUnsafeSlow(text.length);
    bytes.write(text, 'latin1');
    return bytes;
  }

  get signal(): AbortSignal {
    return (this.#signal ??= whenGone(this.#res));
  }
}

/** What answers when Astro has no route for the path: the API's 404 problem, the not-found page, or a minimal one. */
function notFound({ out, notFoundEntry }: EdgeParts, x: Exchange): Answer | Promise<Answer> {
  if (x.route.kind === 'api') return errorAnswer(x.route, new HttpError('not_found', { detail: `No API resource at ${x.url.pathname}.` }));
  if (notFoundEntry && (x.method === 'GET' || x.method === 'HEAD')) return out.file(x.req, notFoundEntry, 404);
  const response = { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: '<!doctype html><title>Not found</title><h1>Not found</h1><p><a href="/">Home</a></p>' };
  return { kind: 'plain', response, edge: true };
}

/** Routes without an endpoint: pages rendered per request and Astro's own paths. Astro writes `res` itself (astro-tap.ts says why it is tapped). */
export async function callAstro(parts: EdgeParts, x: Exchange): Promise<Answer> {
  const { deps, out } = parts;
  const { req, res, method, route } = x;
  if (hasBody(method)) {
    // Astro's adapter uses a pre-read `req.body` instead of reading the stream itself.
    (req as IncomingMessage & { body?: Buffer }).body = await readBody(req, route.bodyLimit);
  }
  out.flushHead(res, x.head);
  x.tap = tapAstro(res, { page: route.kind === 'page', collect: method === 'GET' && x.cacheKey !== undefined });
  return new Promise<Answer>((resolve, reject) => {
    // Astro calls `next` (synchronously, before its promise settles) when it has no route.
    const next = (err?: unknown) => (err ? reject(err) : resolve(notFound(parts, x)));
    Promise.resolve(deps.astro(req, res, next, deps.locals(x.requestId, x.clientKey))).then(() => resolve(WRITTEN), reject);
  });
}
