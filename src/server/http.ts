/**
 * The edge: a thin node:http layer in front of Astro's handler. It owns what every request
 * shares (request id and logging, client identity, rate limits and their headers, security
 * headers, methods, body-size limits, prebuilt files and cached GET responses served from memory)
 * and knows no route's logic: only policies by path from the route table (routes.ts), the
 * standard caching headers endpoints set, and the endpoint the table binds to a path
 * (src/lib/endpoint.ts). Everything else goes to Astro's handler.
 *
 * One request is one pipeline, read top to bottom in `run`: admit (route, method, CORS, rate
 * limit, query), answer (prebuilt file, cached response, the endpoint with its body read once,
 * or Astro), the stage after the answer on the plain response (the limiter's 304 refund, the
 * response cache's store), write; and, once the response is finished or the client gone, the
 * log line and the one observation (observation.ts). What a stage needs from an earlier one is
 * on the request's `Exchange`, never on `res`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { HttpError, toHttpError } from '../lib/http-error.ts';
import { KNOWN_METHODS } from '../lib/methods.ts';
import { requestIdOf } from '../lib/probes.ts';
import { admit, type Admission } from './admit.ts';
import { callAstro, callEndpoint, probe } from './answer.ts';
import { ClientAbortedError } from './body.ts';
import type { Exchange, EdgeParts } from './exchange.ts';
import { setHeaderIn } from './head.ts';
import { createNodeServer } from './http-server.ts';
import { createRequestLog, statusSent } from './log.ts';
import type { RequestObservation } from './observation.ts';
import { readTarget } from './request-target.ts';
import { errorAnswer, Responder, type Answer } from './respond.ts';
import { routeOf } from './routes.ts';
import type { EdgeDeps } from './edge-deps.ts';

export type { AstroHandler, EdgeDeps, EdgeLimiter, LimitOutcome } from './edge-deps.ts';
export type { Edge } from './exchange.ts';

function socketKey(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** The route and pending head of a request; a target that is no valid path gets the site API's route and its 400 (admit). */
function exchangeOf({ deps, out }: EdgeParts, req: IncomingMessage, res: ServerResponse, requestId: string, clientKeyOf: (req: IncomingMessage) => string): Exchange {
  const started = performance.now();
  const { url, refusal } = readTarget(req.url ?? '');
  const route = routeOf(refusal === undefined ? url.pathname : '/api');
  const refused = refusal === undefined ? undefined : new HttpError('validation_failed', { detail: refusal });
  // Astro routes on req.url and builds its Request URL from Host: give it the path the edge
  // decided on (so limits, cache keys and routing agree) and our own host, never the client's
  // (a Host such as `x/api/chat?` or `a@b` would otherwise steer routing or break the URL).
  req.url = `${url.pathname}${url.search}`;
  req.headers.host = deps.siteHost();
  if (req.headers['x-forwarded-host'] !== undefined) delete req.headers['x-forwarded-host'];
  const method = req.method ?? 'GET';
  return {
    req, res, method, url, route, refused, requestId, started,
    clientKey: clientKeyOf(req),
    head: out.startHead(route, requestId),
    file: undefined, cacheKey: undefined, limit: undefined, rateClass: null, tap: undefined,
    cache: 'none', staticFile: 'none', bytesSent: 0,
  };
}

/** The answer's status, before it is written. */
function statusOf(x: Exchange, answer: Answer): number {
  return answer.kind === 'plain' ? answer.response.status : answer.kind === 'stored' ? answer.status : x.res.statusCode;
}

/**
 * The stage after the answer, on the plain response before it is written: the response cache's
 * copy of a cacheable 200, then the limiter's last word given the status of what is written (a
 * 304 gives its day unit back, src/app/edge-limiter.ts). A stored copy is written as a hit would
 * be, so the first client gets what every later one does: the encoding it accepts, `Vary`, the
 * variant's ETag, or a 304 (RFC 9110 section 12.5.5: a negotiated answer names what it varies on).
 */
function afterAnswer(parts: EdgeParts, x: Exchange, answer: Answer): Answer {
  const sent = stored(parts, x, answer);
  const replaced = x.limit?.onStatus?.(statusOf(x, sent));
  if (replaced) for (const name in replaced) setHeaderIn(x.head, name, replaced[name]!);
  return sent;
}

/** The answer to write after the response cache has seen it: the cached entry, when the endpoint's answer was stored. */
function stored({ deps, out }: EdgeParts, x: Exchange, answer: Answer): Answer {
  if (answer.kind === 'stored') {
    if (answer.source === 'cache') x.cache = 'hit';
    else x.staticFile = answer.source === 'hot' ? 'hit' : 'miss';
    return answer;
  }
  if (x.cacheKey === undefined) return answer;
  x.cache = 'miss';
  if (answer.kind !== 'plain' || answer.edge) return answer;
  const { response } = answer;
  const { body } = response;
  if (response.status !== 200 || body === null || body instanceof ReadableStream) return answer;
  const bytes = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const entry = deps.cache.store(x.cacheKey, x.req.headers, 200, response.headers, bytes);
  return entry ? out.cached(x.req, entry) : answer;
}

/** The last stage, when the response is finished or the client gone: Astro's answer cached, the log line, the observation. */
function finish({ deps }: EdgeParts, x: Exchange, logRequest: ReturnType<typeof createRequestLog>): void {
  const { req, res, tap } = x;
  const finished = res.writableFinished;
  // The status the client got: 499 when it left before the head went out (log.ts).
  const status = statusSent(res);
  if (tap) {
    x.bytesSent = tap.bytes;
    const body = x.cacheKey !== undefined && res.writableEnded && res.statusCode === 200 ? tap.body() : undefined;
    if (body) deps.cache.store(x.cacheKey!, req.headers, 200, res.getHeaders() as Record<string, string | string[]>, body);
  }
  const ms = performance.now() - x.started;
  const record = { reqId: x.requestId, method: req.method, path: x.url.pathname, status, ms: Math.round(ms * 100) / 100, aborted: !finished };
  // A route may keep its lines below info (the metrics scrape, every few seconds).
  if (x.route.accessLog === 'info') logRequest(record);
  else deps.log.debug(record, 'request');
  if (!deps.observe) return;
  const observation: RequestObservation = {
    route: x.route.name,
    method: KNOWN_METHODS.has(x.method) ? x.method : 'other',
    status,
    durationSeconds: ms / 1000,
    bytesSent: x.bytesSent,
    responseCache: x.cache,
    staticFile: x.staticFile,
    rateLimit: x.rateClass && x.limit ? { class: x.rateClass, outcome: x.limit.refused?.status === 429 ? 'refused' : x.limit.degraded ? 'degraded' : 'allowed' } : undefined,
  };
  deps.observe(observation);
}

/** The answer of a request whose answering threw; undefined when the client is gone (nothing to write). */
function failure({ deps }: EdgeParts, x: Exchange, error: unknown): Answer | undefined {
  if (error instanceof ClientAbortedError || x.req.destroyed) {
    // The client went away mid-request: nothing to answer, nothing wrong on our side.
    x.res.statusCode = 499; // nginx's "client closed request", for the log line
    x.res.destroy();
    return undefined;
  }
  const httpError = toHttpError(error);
  if (httpError.status >= 500) deps.log.error({ reqId: x.requestId, err: error }, 'unhandled error');
  return errorAnswer(x.route, httpError);
}

/** The stage after the answer, then the write. */
function written(parts: EdgeParts, x: Exchange, answer: Answer | undefined): void | Promise<void> {
  if (answer === undefined) return;
  const final = afterAnswer(parts, x, answer);
  if (final.kind === 'written') return;
  const sent = parts.out.write(x.res, x.head, final);
  if (typeof sent === 'number') x.bytesSent = sent;
  else return sent.then((bytes) => void (x.bytesSent = bytes));
}

/** A response that could not be written: logged, and the connection cut. */
function notWritten({ deps }: EdgeParts, x: Exchange, error: unknown): void {
  deps.log.error({ reqId: x.requestId, err: error }, 'response not written');
  x.res.destroy();
}

export function createEdge(deps: EdgeDeps): import('./exchange.ts').Edge {
  const { log } = deps;
  const clientKeyOf = deps.clientKey ?? socketKey;
  const logRequest = createRequestLog(log);
  const notFoundPage = deps.statics.get('/404.html');
  const out = new Responder(deps.statics, deps.https);
  const parts: EdgeParts = { deps, out, notFoundEntry: notFoundPage && { ...notFoundPage, cacheControl: 'no-store' } };

  /**
   * The answer: a refusal, a prebuilt file, a cached response, the endpoint's, or Astro's. Known at
   * once when nothing has to be waited for (a cache hit, a prebuilt file in memory, a 429 from the
   * in-process limiter): each `await` on the way was a promise and a microtask turn per request.
   */
  function answerOf(x: Exchange): Answer | Promise<Answer> {
    const admitted = admit(parts, x);
    return admitted instanceof Promise ? admitted.then((refusal) => answerAdmitted(x, refusal)) : answerAdmitted(x, admitted);
  }

  function answerAdmitted(x: Exchange, refusal: Admission): Answer | Promise<Answer> {
    if (refusal) return refusal;
    if (x.route.kind === 'probe') return probe(parts, x);
    if (x.file) return out.file(x.req, x.file);
    const hit = x.cacheKey === undefined ? undefined : deps.cache.get(x.cacheKey);
    if (hit) return out.cached(x.req, hit);
    if (x.route.endpoint) return callEndpoint(parts, x, x.route.endpoint);
    return callAstro(parts, x);
  }

  /**
   * One request: admit and answer, the stage after the answer, write. Synchronous when nothing has
   * to be waited for (a cache hit, a prebuilt file in memory, a 429): an async function's promise
   * and its `.catch` were two promises and a microtask turn per request.
   */
  function run(x: Exchange): void | Promise<void> {
    let pending: Answer | Promise<Answer>;
    try {
      pending = answerOf(x);
    } catch (error) {
      return written(parts, x, failure(parts, x, error));
    }
    if (pending instanceof Promise) return pending.then((answer) => written(parts, x, answer), (error: unknown) => written(parts, x, failure(parts, x, error)));
    return written(parts, x, pending);
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    // A client's own X-Request-Id would let it choose what its log lines correlate with: taken
    // only from a proxy TRUST_PROXY names (nginx sets its $request_id), otherwise ours.
    const requestId = requestIdOf(deps.trustedProxy?.(req) === true ? req.headers['x-request-id'] : undefined);
    const x = exchangeOf(parts, req, res, requestId, clientKeyOf);
    // `on`, not `once`: node emits a response's 'close' once (emitCloseNT checks `_closed`), and
    // `once` wrapped the listener in a bound function and removed it again, per request.
    res.on('close', () => {
      // While draining, a connection whose last response just ended is idle: let it go now
      // rather than after the keep-alive timeout.
      if (out.draining) setImmediate(() => server.closeIdleConnections());
      finish(parts, x, logRequest);
    });
    try {
      run(x)?.catch((error: unknown) => notWritten(parts, x, error));
    } catch (error) {
      notWritten(parts, x, error);
    }
  }

  const server = createNodeServer(onRequest);
  return {
    server,
    onRequest,
    startDraining: () => {
      out.draining = true;
    },
  };
}
