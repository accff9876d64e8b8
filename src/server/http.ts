/**
 * The edge: a thin node:http layer in front of Astro's handler. It owns what every request
 * shares (request id and logging, client identity, rate limits and their headers, security
 * headers, body-size limits, prebuilt files and cached GET responses served from memory) and
 * knows no route's logic: only policies by path, the standard caching headers endpoints set, and
 * the endpoint the route table binds to a path (src/lib/endpoint.ts), which it calls with the
 * body read once and one deadline. Everything else goes to Astro's handler.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { corsHeaders, EXPOSED_HEADERS } from '../lib/cors.ts';
import type { Endpoint, HeaderReader, PlainRequest } from '../lib/endpoint.ts';
import { HttpError, toHttpError } from '../lib/http-error.ts';
import { answerProbe, requestIdOf } from '../lib/probes.ts';
import { ClientAbortedError, readBody } from './body.ts';
import { createNodeServer } from './http-server.ts';
import { readTarget, type RequestTarget } from './request-target.ts';
import { createRequestLog, statusSent } from './log.ts';
import { cacheKeyOf, routeOf, type EndpointDeps, type Route } from './routes.ts';
import type { EdgeDeps } from './edge-deps.ts';
import { readStrictQuery } from './strict-query.ts';
import type { Head } from './head.ts';
import { Responder } from './respond.ts';
import type { StaticFile } from './static-files.ts';
import { keepEdgeCspOnWriteHead } from './security.ts';

export type { AstroHandler, EdgeDeps, EdgeLimiter, LimitOutcome } from './edge-deps.ts';

/** Public read resources: any page may fetch them and read the limit headers. */
const PUBLIC_READ_CORS: readonly string[] = ['access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED_HEADERS.join(', ')];
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

function socketKey(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

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

const hasBody = (method: string) => method !== 'GET' && method !== 'HEAD' && method !== 'OPTIONS';

/** One request as the edge's stages see it. */
interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  url: RequestTarget;
  route: Route;
  /** The 400 of a target that is no valid path, sent once its rate limit is charged. */
  refused: HttpError | undefined;
  requestId: string;
  head: Head;
  /** performance.now() at arrival. */
  started: number;
  /** Date.now() at arrival: the endpoint's deadline counts from here. */
  arrived: number;
}

export interface Edge {
  server: Server;
  /** The node:http request listener. */
  onRequest: (req: IncomingMessage, res: ServerResponse) => void;
  /** From now on every response closes its connection, so keep-alive clients let go. */
  startDraining(): void;
}

/** What the edge's stages share: its dependencies, its writer and the not-found page. */
interface EdgeParts {
  deps: EdgeDeps;
  out: Responder;
  notFoundEntry: StaticFile | undefined;
}

function addCors(deps: EdgeDeps, req: IncomingMessage, head: Head, route: Route): void {
  if (route.cors === 'none') return;
  if (route.cors === 'public' && (req.method === 'GET' || req.method === 'HEAD')) {
    head.push(...PUBLIC_READ_CORS);
    return;
  }
  const headers = corsHeaders({ origin: req.headers.origin, allowed: req.headers.origin !== undefined && deps.allowedOrigins().includes(req.headers.origin) });
  for (const name in headers) head.push(name, headers[name]!);
}

async function probe(deps: EdgeDeps, { res, route, head }: Exchange): Promise<void> {
  // A failed check is logged where it runs (deps.ready), once per check: a probe flood answered
  // from one remembered failure must not become a log flood.
  const answer = await answerProbe(route.path, deps.ready, deps.readyDetails);
  for (const name in answer.headers) head.push(name, answer.headers[name]!);
  res.writeHead(answer.status, head).end(answer.body);
}

/**
 * The policies every request passes before any work: known method, CORS, rate limit (a refused
 * request costs no body, database or assistant), hidden paths, the strict query. Returns the
 * refusal to send, the strict query's cache key, or nothing.
 */
async function admit({ deps }: EdgeParts, x: Exchange, clientKey: string, prebuilt: boolean): Promise<HttpError | { cacheKey: string | undefined } | undefined> {
  const { req, method, route, head } = x;
  const { limiter } = deps;
  if (!KNOWN_METHODS.has(method)) {
    // TRACE, CONNECT and inventions: refused here, before the Fetch Request Astro builds
    // (which cannot represent some of them) turns them into a 500.
    return new HttpError(405, 'method_not_allowed', { detail: `${method} is not supported.`, headers: { allow: 'GET, HEAD, POST, OPTIONS' } });
  }
  addCors(deps, req, head, route);
  const rateClass = limiter ? route.rate(method, prebuilt) : null;
  if (limiter && rateClass) {
    const outcome = await limiter.check(rateClass, clientKey, req.headers);
    for (const name in outcome.headers) head.push(name, outcome.headers[name]!);
    if (outcome.refused) return outcome.refused;
    if (outcome.onStatus) head.onStatus = outcome.onStatus;
  }
  if (x.refused) return x.refused;
  if (route.kind === 'hidden' || (route.prebuiltOnly && !prebuilt)) return new HttpError(404, 'not_found', { detail: `Nothing is served at ${x.url.pathname}.` });
  if (!route.strictQuery) return undefined;
  // Refused here, before any handler: the route table declares what the endpoint accepts, and
  // a flood of junk parameters then costs nothing more (each one copied a 12 KB URL many times).
  const strict = readStrictQuery(route, x.url);
  if (!strict.unknown) return { cacheKey: strict.cacheKey };
  const code = route.interface === 'data' ? 'SVC1005' : 'validation_failed';
  return new HttpError(400, code, { detail: strict.unknown, resolution: `Send only ${route.query.join(' and ')}.` });
}

/** The route's endpoint, called with the body read once within the route's limit and its one deadline. */
async function callEndpoint({ deps, out }: EdgeParts, x: Exchange, endpoint: Endpoint<EndpointDeps>, cacheKey: string | undefined): Promise<void> {
  const { req, res, method, url, route } = x;
  const body = hasBody(method) ? await readBody(req, route.bodyLimit) : undefined;
  const target = new URL(`${url.pathname}${url.search}`, `${deps.https ? 'https' : 'http'}://${deps.siteHost()}`);
  let signal: AbortSignal | undefined;
  const request: PlainRequest = {
    method,
    url: target,
    headers: headerReader(req.headers),
    body,
    deadline: x.arrived + route.deadlineMs,
    get signal() {
      return (signal ??= whenGone(res));
    },
  };
  const answer = await endpoint(request, deps.endpointDeps());
  if (method === 'GET' && cacheKey !== undefined) deps.cache.capture(cacheKey, req, res);
  await out.sendPlain(res, x.head, answer);
}

/** Routes without an endpoint: pages rendered per request and Astro's own paths. */
async function callAstro({ deps, out, notFoundEntry }: EdgeParts, x: Exchange, clientKey: string, cacheKey: string | undefined): Promise<void> {
  const { req, res, method, route, head } = x;
  if (hasBody(method)) {
    // Astro's adapter uses a pre-read `req.body` instead of reading the stream itself.
    (req as IncomingMessage & { body?: Buffer }).body = await readBody(req, route.bodyLimit);
  }
  out.flushHead(res, head);
  if (route.kind === 'page') keepEdgeCspOnWriteHead(res);
  if (method === 'GET' && cacheKey !== undefined) deps.cache.capture(cacheKey, req, res);
  const isRead = method === 'GET' || method === 'HEAD';
  await deps.astro(
    req,
    res,
    (err?: unknown) => {
      if (err) return out.sendError(res, route, head, toHttpError(err));
      if (route.kind === 'api') return out.sendError(res, route, head, new HttpError(404, 'not_found', { detail: `No API resource at ${x.url.pathname}.` }));
      if (notFoundEntry && isRead) return void out.sendFile(req, res, route, head, notFoundEntry, 404);
      res.statusCode = 404;
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end('<!doctype html><title>Not found</title><h1>Not found</h1><p><a href="/">Home</a></p>');
    },
    deps.locals(x.requestId, clientKey),
  );
}

/** The route and pending head of a request; a target that is no valid path gets the site API's route and its 400 (admit). */
function exchangeOf({ deps, out }: EdgeParts, req: IncomingMessage, res: ServerResponse, requestId: string): Exchange {
  const started = performance.now();
  const { url, refusal } = readTarget(req.url ?? '');
  const route = routeOf(refusal === undefined ? url.pathname : '/api');
  const refused = refusal === undefined ? undefined : new HttpError(400, 'validation_failed', { detail: refusal });
  // Astro routes on req.url and builds its Request URL from Host: give it the path the edge
  // decided on (so limits, cache keys and routing agree) and our own host, never the client's
  // (a Host such as `x/api/chat?` or `a@b` would otherwise steer routing or break the URL).
  req.url = `${url.pathname}${url.search}`;
  req.headers.host = deps.siteHost();
  if (req.headers['x-forwarded-host'] !== undefined) delete req.headers['x-forwarded-host'];
  return { req, res, method: req.method ?? 'GET', url, route, refused, requestId, head: out.startHead(route, requestId), started, arrived: Date.now() };
}

export function createEdge(deps: EdgeDeps): Edge {
  const { log, statics, cache } = deps;
  const clientKeyOf = deps.clientKey ?? socketKey;
  const logRequest = createRequestLog(log);
  const notFoundPage = statics.get('/404.html');
  const out = new Responder(statics, deps.https);
  const parts: EdgeParts = { deps, out, notFoundEntry: notFoundPage && { ...notFoundPage, cacheControl: 'no-store' } };

  async function serve(x: Exchange): Promise<void> {
    const { req, res, method, route, head } = x;
    const { pathname } = x.url;
    if (route.kind === 'probe') return probe(deps, x);
    const clientKey = clientKeyOf(req);
    // Prebuilt files answer whatever the query string (?utm_source=… on a page, a cache-buster on
    // /api/news), like any static server; methods other than GET and HEAD get 405.
    const file = statics.get(pathname) ?? (pathname.length > 1 && pathname.endsWith('/') ? statics.get(pathname.slice(0, -1)) : undefined);
    const admitted = await admit(parts, x, clientKey, file !== undefined);
    if (admitted instanceof HttpError) return out.sendError(res, route, head, admitted);

    const isRead = method === 'GET' || method === 'HEAD';
    // Pages, prebuilt or rendered per request, are documents: GET and HEAD only (RFC 9110
    // section 15.5.6), refused here before Astro renders the whole page for a POST or OPTIONS.
    if ((file || route.kind === 'page') && !isRead) {
      return out.sendError(res, route, head, new HttpError(405, 'method_not_allowed', { detail: `${pathname} only answers GET and HEAD.`, headers: { allow: 'GET, HEAD' } }));
    }
    let cacheKey: string | undefined;
    if (isRead) {
      if (file) return out.sendFile(req, res, route, head, file);
      cacheKey = admitted ? admitted.cacheKey : cacheKeyOf(route, pathname, x.url.searchParams);
      const hit = cacheKey === undefined ? undefined : cache.get(cacheKey);
      if (hit) return out.sendStored(req, res, head, hit);
    }
    if (route.endpoint) return callEndpoint(parts, x, route.endpoint, cacheKey);
    return callAstro(parts, x, clientKey, cacheKey);
  }

  function onRequest(req: IncomingMessage, res: ServerResponse): void {
    // A client's own X-Request-Id would let it choose what its log lines correlate with: taken
    // only from a proxy TRUST_PROXY names (nginx sets its $request_id), otherwise ours.
    const requestId = requestIdOf(deps.trustedProxy?.(req) === true ? req.headers['x-request-id'] : undefined);
    const x = exchangeOf(parts, req, res, requestId);
    res.once('close', () => {
      // While draining, a connection whose last response just ended is idle: let it go now
      // rather than after the keep-alive timeout.
      if (out.draining) setImmediate(() => server.closeIdleConnections());
      const ms = performance.now() - x.started;
      logRequest({ reqId: requestId, method: req.method, path: x.url.pathname, status: statusSent(res), ms: Math.round(ms * 100) / 100, aborted: !res.writableFinished });
    });
    serve(x).catch((error: unknown) => {
      if (error instanceof ClientAbortedError || req.destroyed) {
        // The client went away mid-request: nothing to answer, nothing wrong on our side.
        res.statusCode = 499; // nginx's "client closed request", for the log line only
        res.destroy();
        return;
      }
      const httpError = toHttpError(error);
      if (httpError.status >= 500) log.error({ reqId: requestId, err: error }, 'unhandled error');
      out.sendError(res, x.route, x.head, httpError);
    });
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
