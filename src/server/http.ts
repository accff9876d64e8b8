/**
 * The edge: a thin node:http layer in front of Astro's handler. It owns what every request
 * shares (request id and logging, client identity, rate limits and their headers, security
 * headers, body-size limits, prebuilt files and cached GET responses served from memory) and
 * knows no route's logic: only policies by path and the standard caching headers endpoints set.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { corsHeaders, EXPOSED_HEADERS } from '../lib/cors.ts';
import { HttpError, renderError, toHttpError } from '../lib/http-error.ts';
import { answerProbe, requestIdOf } from '../lib/probes.ts';
import { ClientAbortedError, readBody } from './body.ts';
import { createNodeServer } from './http-server.ts';
import { BadTarget, parseRequestTarget, type RequestTarget } from './request-target.ts';
import { createRequestLog } from './log.ts';
import type { CachedResponse } from './response-cache.ts';
import { cacheKeyOf, routeOf, type Route } from './routes.ts';
import type { EdgeDeps } from './edge-deps.ts';
import { readStrictQuery } from './strict-query.ts';
import { createStoredHeads, setHeaderIn, type Head } from './head.ts';
import { keepEdgeCspOnWriteHead, securityHeaders } from './security.ts';
import { ifNoneMatchMatches } from '../lib/http-validators.ts';
import { negotiate, type Coding } from './content-coding.ts';
import type { StaticFile } from './static-files.ts';
import type { ReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';

export { parseTarget } from './request-target.ts';

export type { AstroHandler, EdgeDeps, EdgeLimiter, LimitOutcome } from './edge-deps.ts';

/** Public read resources: any page may fetch them and read the limit headers. */
const PUBLIC_READ_CORS: readonly string[] = ['access-control-allow-origin', '*', 'access-control-expose-headers', EXPOSED_HEADERS.join(', ')];
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

function socketKey(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

export interface Edge {
  server: Server;
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** From now on every response closes its connection, so keep-alive clients let go. */
  startDraining(): void;
}

export function createEdge(deps: EdgeDeps): Edge {
  const { log, statics, cache, limiter, astro } = deps;
  const clientKeyOf = deps.clientKey ?? socketKey;
  const logRequest = createRequestLog(log);
  const notFoundPage = statics.get('/404.html');
  const notFoundEntry = notFoundPage && { ...notFoundPage, cacheControl: 'no-store' };
  const securityByRoute = new Map<Route, readonly string[]>();
  const storedHeadOf = createStoredHeads();
  let draining = false;

  /** The headers every response of `route` starts with: security, request id, Connection when draining. */
  function startHead(route: Route, requestId: string): Head {
    let security = securityByRoute.get(route);
    if (security === undefined) securityByRoute.set(route, (security = securityHeaders(route, deps.https)));
    const head: Head = security.slice();
    head.push('X-Request-Id', requestId);
    if (draining) head.push('Connection', 'close');
    return head;
  }

  /** Hand the pending headers to the response, for a handler that writes its own (Astro, probes). */
  function flushHead(res: ServerResponse, head: Head): void {
    for (let i = 0; i < head.length; i += 2) res.setHeader(head[i] as string, head[i + 1]!);
    head.length = 0;
    // Handlers that write their own head never answer a limited request with a 304: the data
    // API's 304s come from the response cache (sendStored) or its edge handler, both settled
    // with their status. A writeHead wrapper per request for the rest cost ~100 MiB of RSS under
    // test/e2e/memory-bounds.test.ts' flood, so there is none.
    head.settle = undefined;
  }

  /** Write the status and every pending header at once, after the limiter has seen the status. */
  function writeHead(res: ServerResponse, status: number, head: Head): void {
    const replaced = head.settle?.(status);
    if (replaced) for (const name in replaced) setHeaderIn(head, name, replaced[name]!);
    res.writeHead(status, head);
  }

  function sendError(res: ServerResponse, route: Route, head: Head, error: HttpError): void {
    const rendered = renderError(error, route.path);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const name in rendered.headers) head.push(name, rendered.headers[name]!);
    head.push('Content-Length', Buffer.byteLength(rendered.body));
    writeHead(res, rendered.status, head);
    res.end(res.req.method === 'HEAD' ? undefined : rendered.body);
  }

  /** Write a cached response with validators; 304 when the client already has it. */
  function sendStored(req: IncomingMessage, res: ServerResponse, head: Head, entry: CachedResponse): void {
    const { bytes, encoding } = negotiate(entry.body, req.headers['accept-encoding']);
    writeStored(req, res, head, entry, encoding, bytes.length, bytes, ifNoneMatchMatches(req.headers['if-none-match'], entry.etag), 200);
  }

  /**
   * Write a prebuilt file: from the hot cache when it holds the bytes, otherwise read from disk
   * first. A 304 or a HEAD needs no bytes (the manifest gives the length), so it reads nothing.
   */
  function sendFile(req: IncomingMessage, res: ServerResponse, route: Route, head: Head, file: StaticFile, status = 200): void | Promise<void> {
    const encoding = statics.codingFor(file, req.headers['accept-encoding']);
    const body = encoding === undefined ? file.identity : file[encoding]!;
    const notModified = status === 200 && ifNoneMatchMatches(req.headers['if-none-match'], file.etag);
    const bytes = notModified || req.method === 'HEAD' ? undefined : statics.cached(body);
    if (bytes !== undefined || notModified || req.method === 'HEAD') return writeStored(req, res, head, file, encoding, body.size, bytes, notModified, status);
    return statics.read(body).then(
      (read) => writeStored(req, res, head, file, encoding, body.size, read, false, status),
      (error: unknown) => sendError(res, route, head, toHttpError(error)),
    );
  }

  /** Known bytes with their validators; the 304 carries what a 200 would, except the body's own fields (RFC 9110 section 15.4.5). */
  function writeStored(req: IncomingMessage, res: ServerResponse, head: Head, entry: StaticFile | CachedResponse, encoding: Coding | undefined, length: number, body: Buffer | ReadStream | undefined, notModified: boolean, status: number): void {
    const stored = storedHeadOf(entry, encoding);
    if (stored.csp !== undefined) setHeaderIn(head, 'Content-Security-Policy', stored.csp);
    if (notModified) {
      for (let i = 0; i < stored.head.length; i += 2) {
        const name = stored.head[i] as string;
        if (name !== 'Content-Type' && name !== 'content-type' && name !== 'Content-Encoding') head.push(name, stored.head[i + 1]!);
      }
      writeHead(res, 304, head);
      res.end();
      return;
    }
    for (let i = 0; i < stored.head.length; i++) head.push(stored.head[i]!);
    head.push('Content-Length', length);
    writeHead(res, status, head);
    if (body === undefined || Buffer.isBuffer(body)) res.end(req.method === 'HEAD' ? undefined : body);
    // A large file streamed from disk; on an error mid-way (client gone, file cut short) pipeline destroys both ends.
    else pipeline(body, res).catch(() => {});
  }

  function addCors(req: IncomingMessage, head: Head, route: Route): void {
    if (route.cors === 'none') return;
    if (route.cors === 'public' && (req.method === 'GET' || req.method === 'HEAD')) {
      head.push(...PUBLIC_READ_CORS);
      return;
    }
    const headers = corsHeaders({ origin: req.headers.origin, allowed: req.headers.origin !== undefined && deps.allowedOrigins().includes(req.headers.origin) });
    for (const name in headers) head.push(name, headers[name]!);
  }

  async function probe(res: ServerResponse, route: Route, head: Head): Promise<void> {
    // A failed check is logged where it runs (deps.ready), once per check: a probe flood answered
    // from one remembered failure must not become a log flood.
    const answer = await answerProbe(route.path, deps.ready, deps.readyDetails);
    for (const name in answer.headers) head.push(name, answer.headers[name]!);
    res.writeHead(answer.status, head).end(answer.body);
  }

  async function serve(req: IncomingMessage, res: ServerResponse, url: RequestTarget, route: Route, requestId: string, head: Head): Promise<void> {
    const { pathname } = url;
    const method = req.method ?? 'GET';
    if (route.kind === 'probe') return probe(res, route, head);

    if (!KNOWN_METHODS.has(method)) {
      // TRACE, CONNECT and inventions: refused here, before the Fetch Request Astro builds
      // (which cannot represent some of them) turns them into a 500.
      return sendError(res, route, head, new HttpError(405, 'method_not_allowed', { detail: `${method} is not supported.`, headers: { allow: 'GET, HEAD, POST, OPTIONS' } }));
    }
    const clientKey = clientKeyOf(req);
    addCors(req, head, route);

    // Limits come first so that a refused request costs no body parsing, database or assistant.
    const rateClass = limiter ? route.rate(method) : null;
    if (limiter && rateClass) {
      const outcome = await limiter.check(rateClass, clientKey, req.headers);
      for (const name in outcome.headers) head.push(name, outcome.headers[name]!);
      if (outcome.refused) return sendError(res, route, head, outcome.refused);
      if (outcome.settle) head.settle = outcome.settle;
    }
    if (route.kind === 'hidden') return sendError(res, route, head, new HttpError(404, 'not_found', { detail: `Nothing is served at ${pathname}.` }));

    const strict = route.strictQuery ? readStrictQuery(route, url) : undefined;
    if (strict) {
      // Refused here, before Astro: the route table declares what the handler accepts, and a
      // flood of junk parameters then costs no render (each one copied a 12 KB URL many times).
      const { unknown } = strict;
      if (unknown) {
        const code = route.interface === 'data' ? 'SVC1005' : 'validation_failed';
        return sendError(res, route, head, new HttpError(400, code, { detail: unknown, resolution: `Send only ${route.query.join(' and ')}.` }));
      }
    }

    const isRead = method === 'GET' || method === 'HEAD';
    let cacheKey: string | undefined;
    // Prebuilt files answer whatever the query string (?utm_source=… on a page, a cache-buster on
    // /api/news), like any static server; methods other than GET and HEAD get 405.
    const file = statics.get(pathname) ?? (pathname.length > 1 && pathname.endsWith('/') ? statics.get(pathname.slice(0, -1)) : undefined);
    // Pages, prebuilt or rendered per request, are documents: GET and HEAD only (RFC 9110
    // section 15.5.6), refused here before Astro renders the whole page for a POST or OPTIONS.
    if ((file || route.kind === 'page') && !isRead) {
      return sendError(res, route, head, new HttpError(405, 'method_not_allowed', { detail: `${pathname} only answers GET and HEAD.`, headers: { allow: 'GET, HEAD' } }));
    }
    if (isRead) {
      if (file) return sendFile(req, res, route, head, file);
      cacheKey = strict ? strict.cacheKey : cacheKeyOf(route, pathname, url.searchParams);
      const hit = cacheKey === undefined ? undefined : cache.get(cacheKey);
      if (hit) return sendStored(req, res, head, hit);
    } else if (method !== 'OPTIONS') {
      // Astro's adapter uses a pre-read `req.body` instead of reading the stream itself.
      (req as IncomingMessage & { body?: Buffer }).body = await readBody(req, route.bodyLimit);
    }

    const handler = deps.handlers?.get(route.path);
    // A handler's status is known before its head is written: the limiter settles it below.
    const settle = head.settle;
    flushHead(res, head);
    if (route.kind === 'page') keepEdgeCspOnWriteHead(res);
    if (method === 'GET' && cacheKey !== undefined) cache.capture(cacheKey, req, res);
    if (handler) {
      const body = (req as IncomingMessage & { body?: Buffer }).body;
      const target = new URL(req.url!, `${deps.https ? 'https' : 'http'}://${deps.siteHost()}`);
      const answer = await handler({ method, url: target, headers: req.headers, body }, deps.locals(requestId, clientKey));
      res.statusCode = answer.status;
      for (const name in answer.headers) res.setHeader(name, answer.headers[name]!);
      const settled = settle?.(answer.status);
      if (settled) for (const name in settled) res.setHeader(name, settled[name]!);
      // Encoded once: for the Content-Length, the socket and the response cache's copy.
      const bytes = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
      if (bytes !== null) res.setHeader('content-length', bytes.byteLength);
      res.end(bytes ?? undefined); // node sends no body for HEAD
      return;
    }
    await astro(
      req,
      res,
      (err?: unknown) => {
        if (err) return sendError(res, route, head, toHttpError(err));
        if (route.kind === 'api') return sendError(res, route, head, new HttpError(404, 'not_found', { detail: `No API resource at ${pathname}.` }));
        if (notFoundEntry && isRead) return void sendFile(req, res, route, head, notFoundEntry, 404);
        res.statusCode = 404;
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end('<!doctype html><title>Not found</title><h1>Not found</h1><p><a href="/">Home</a></p>');
      },
      deps.locals(requestId, clientKey),
    );
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = performance.now();
    // A client's own X-Request-Id would let it choose what its log lines correlate with: taken
    // only from a proxy TRUST_PROXY names (nginx sets its $request_id), otherwise ours.
    const requestId = requestIdOf(deps.trustedProxy?.(req) === true ? req.headers['x-request-id'] : undefined);

    let url: RequestTarget | undefined;
    let refusal = 'The request target is not a valid path.';
    try {
      url = parseRequestTarget(req.url ?? '');
    } catch (error) {
      if (!(error instanceof BadTarget)) throw error;
      refusal = error.message;
    }
    if (!url) {
      const route = routeOf('/api');
      sendError(res, route, startHead(route, requestId), new HttpError(400, 'validation_failed', { detail: refusal }));
      return;
    }
    const route = routeOf(url.pathname);
    // Astro routes on req.url and builds its Request URL from Host: give it the path the edge
    // decided on (so limits, cache keys and routing agree) and our own host, never the client's
    // (a Host such as `x/api/chat?` or `a@b` would otherwise steer routing or break the URL).
    req.url = `${url.pathname}${url.search}`;
    req.headers.host = deps.siteHost();
    if (req.headers['x-forwarded-host'] !== undefined) delete req.headers['x-forwarded-host'];
    const head = startHead(route, requestId);
    const { pathname } = url;

    res.once('close', () => {
      // While draining, a connection whose last response just ended is idle: let it go now
      // rather than after the keep-alive timeout.
      if (draining) setImmediate(() => server.closeIdleConnections());
      const ms = performance.now() - started;
      logRequest({ reqId: requestId, method: req.method, path: pathname, status: res.statusCode, ms: Math.round(ms * 100) / 100, aborted: !res.writableFinished });
    });

    serve(req, res, url, route, requestId, head).catch((error: unknown) => {
      if (error instanceof ClientAbortedError || req.destroyed) {
        // The client went away mid-request: nothing to answer, nothing wrong on our side.
        res.statusCode = 499; // nginx's "client closed request", for the log line only
        res.destroy();
        return;
      }
      const httpError = toHttpError(error);
      if (httpError.status >= 500) log.error({ reqId: requestId, err: error }, 'unhandled error');
      sendError(res, route, head, httpError);
    });
  }

  const server = createNodeServer(handle);
  return {
    server,
    handle,
    startDraining: () => {
      draining = true;
    },
  };
}
