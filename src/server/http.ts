/**
 * The edge: a thin node:http layer in front of Astro's handler. It owns what every request
 * shares (request id and logging, client identity, rate limits and their headers, security
 * headers, body-size limits, prebuilt files and cached GET responses served from memory) and
 * knows no route's logic: only policies by path and the standard caching headers endpoints set.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { corsHeaders, EXPOSED_HEADERS } from '../lib/cors.ts';
import { HttpError, renderError, toHttpError } from '../lib/http-error.ts';
import type { PlainHandler } from '../lib/plain-http.ts';
import { answerProbe, requestIdOf } from '../lib/probes.ts';
import { unknownParameters } from '../lib/query-params.ts';
import { ClientAbortedError, readBody } from './body.ts';
import { createNodeServer } from './http-server.ts';
import { BadTarget, parseTarget } from './request-target.ts';
import { ResponseCache, type CachedResponse } from './response-cache.ts';
import { cacheKeyOf, routeOf, type RateClass, type Route } from './routes.ts';
import { applySecurityHeaders, keepEdgeCspOnWriteHead } from './security.ts';
import { ifNoneMatchMatches, variantEtag } from '../lib/http-validators.ts';
import { negotiate, type StaticFile, type StaticFiles } from './static-files.ts';

export { parseTarget } from './request-target.ts';

/** Astro's Node adapter handler in middleware mode. */
export type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void, locals: App.Locals) => void | Promise<void>;

/** What the edge asks the rate limiter for a request of a limited route. */
export interface EdgeLimiter {
  check(rateClass: RateClass, clientKey: string, headers: IncomingHttpHeaders): Promise<LimitOutcome>;
}
export interface LimitOutcome {
  /** Headers every response of this request carries (RateLimit-*, X-RateLimit-*). */
  headers: Record<string, string>;
  /** Present when the request is refused; rendered as 429 before any other work. */
  refused?: HttpError;
  /** Called with the status just before the response head goes out; returns headers to replace (a 304 gives its day unit back). */
  settle?: (status: number) => Record<string, string> | undefined;
}

export interface EdgeDeps {
  log: Logger;
  astro: AstroHandler;
  /**
   * Feature handlers the edge calls itself, keyed by `Route.path`, instead of through Astro's
   * request pipeline (src/lib/plain-http.ts); every other route goes to Astro.
   */
  handlers?: ReadonlyMap<string, PlainHandler>;
  statics: StaticFiles;
  cache: ResponseCache;
  limiter?: EdgeLimiter;
  clientKey?: (req: IncomingMessage) => string;
  /** Origins whose pages may call the write endpoints and read the limit headers (read per request: PORT=0 learns its origin at listen). */
  allowedOrigins: () => readonly string[];
  https: boolean;
  /** The site's public host, handed to Astro as Host (read per request, as above). */
  siteHost: () => string;
  /** /readyz: resolves when the service can take writes, rejects with the reason otherwise. */
  ready: () => Promise<void>;
  /** Named in /readyz answers, e.g. `{ database: 'sqlite' }`. */
  readyDetails: Record<string, string>;
  /** What Astro's handlers receive as `locals` for one request. */
  locals: (requestId: string, clientKey: string) => App.Locals;
}

/** Public read resources: any page may fetch them and read the limit headers. */
const PUBLIC_READ_CORS: Record<string, string> = { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED_HEADERS.join(', ') };
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

function socketKey(req: IncomingMessage): string {
  return req.socket.remoteAddress ?? 'unknown';
}

/** Let the limiter see the final status before the head is written (every path, implicit or explicit, goes through writeHead). */
function settleOnWriteHead(res: ServerResponse, settle: (status: number) => Record<string, string> | undefined): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((status: number, ...rest: unknown[]) => {
    for (const [name, value] of Object.entries(settle(status) ?? {})) res.setHeader(name, value);
    return writeHead(status, ...rest);
  }) as typeof res.writeHead;
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
  const notFoundPage = statics.get('/404.html');
  let draining = false;

  function sendError(res: ServerResponse, route: Route, error: HttpError): void {
    const rendered = renderError(error, route.path);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.statusCode = rendered.status;
    for (const [name, value] of Object.entries(rendered.headers)) res.setHeader(name, value);
    res.setHeader('content-length', Buffer.byteLength(rendered.body));
    res.end(res.req.method === 'HEAD' ? undefined : rendered.body);
  }

  /** Write known bytes with validators; 304 when the client already has them. */
  function sendStored(req: IncomingMessage, res: ServerResponse, entry: StaticFile | CachedResponse, status = 200): void {
    const { bytes, encoding } = negotiate(entry.body, req.headers['accept-encoding']);
    // Each encoding is its own representation, so its strong validator differs (RFC 9110 section 8.8.3).
    const etag = variantEtag(entry.etag, encoding);
    if ('contentType' in entry) {
      res.setHeader('Content-Type', entry.contentType);
      res.setHeader('Cache-Control', entry.cacheControl);
    } else {
      for (const [name, value] of Object.entries(entry.headers)) res.setHeader(name, value);
    }
    res.setHeader('ETag', etag);
    res.setHeader('Vary', 'Accept-Encoding');
    if (status === 200 && ifNoneMatchMatches(req.headers['if-none-match'], entry.etag)) {
      res.statusCode = 304;
      res.removeHeader('Content-Type');
      res.end();
      return;
    }
    if (encoding) res.setHeader('Content-Encoding', encoding);
    res.statusCode = status;
    res.setHeader('Content-Length', bytes.length);
    res.end(req.method === 'HEAD' ? undefined : bytes);
  }

  function applyCors(req: IncomingMessage, res: ServerResponse, route: Route): void {
    if (route.cors === 'none') return;
    const headers =
      route.cors === 'public' && (req.method === 'GET' || req.method === 'HEAD')
        ? PUBLIC_READ_CORS
        : corsHeaders({ origin: req.headers.origin, allowed: req.headers.origin !== undefined && deps.allowedOrigins().includes(req.headers.origin) });
    for (const name in headers) res.setHeader(name, headers[name]!);
  }

  async function probe(res: ServerResponse, route: Route): Promise<void> {
    const answer = await answerProbe(route.path, deps.ready, deps.readyDetails);
    if (answer.failure !== undefined) log.warn({ err: answer.failure }, 'readiness check failed');
    res.writeHead(answer.status, answer.headers).end(answer.body);
  }


  async function serve(req: IncomingMessage, res: ServerResponse, url: URL, route: Route, requestId: string): Promise<void> {
    const { pathname } = url;
    const method = req.method ?? 'GET';
    if (route.kind === 'probe') return probe(res, route);

    if (!KNOWN_METHODS.has(method)) {
      // TRACE, CONNECT and inventions: refused here, before the Fetch Request Astro builds
      // (which cannot represent some of them) turns them into a 500.
      return sendError(res, route, new HttpError(405, 'method_not_allowed', { detail: `${method} is not supported.`, headers: { allow: 'GET, HEAD, POST, OPTIONS' } }));
    }
    const clientKey = clientKeyOf(req);
    applyCors(req, res, route);

    // Limits come first so that a refused request costs no body parsing, database or assistant.
    const rateClass = limiter ? route.rate(method) : null;
    if (limiter && rateClass) {
      const outcome = await limiter.check(rateClass, clientKey, req.headers);
      for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
      if (outcome.refused) return sendError(res, route, outcome.refused);
      if (outcome.settle) settleOnWriteHead(res, outcome.settle);
    }
    if (route.kind === 'hidden') return sendError(res, route, new HttpError(404, 'not_found', { detail: `Nothing is served at ${pathname}.` }));

    if (route.strictQuery) {
      // Refused here, before Astro: the route table declares what the handler accepts, and a
      // flood of junk parameters then costs no render (each one copied a 12 KB URL many times).
      const unknown = unknownParameters(url.searchParams, route.query);
      if (unknown) {
        const code = route.interface === 'data' ? 'SVC1005' : 'validation_failed';
        return sendError(res, route, new HttpError(400, code, { detail: unknown, resolution: `Send only ${route.query.join(' and ')}.` }));
      }
    }

    const isRead = method === 'GET' || method === 'HEAD';
    let cacheKey: string | undefined;
    // Prebuilt files answer whatever the query string (?utm_source=… on a page, a cache-buster on
    // /api/news), like any static server; methods other than GET and HEAD get 405.
    const file = statics.get(pathname) ?? (pathname.length > 1 && pathname.endsWith('/') ? statics.get(pathname.slice(0, -1)) : undefined);
    if (file && !isRead) {
      return sendError(res, route, new HttpError(405, 'method_not_allowed', { detail: `${pathname} only answers GET and HEAD.`, headers: { allow: 'GET, HEAD' } }));
    }
    if (isRead) {
      if (file) return sendStored(req, res, file);
      cacheKey = cacheKeyOf(route, pathname, url.searchParams);
      const hit = cacheKey === undefined ? undefined : cache.get(cacheKey);
      if (hit) return sendStored(req, res, hit);
    } else if (method !== 'OPTIONS') {
      // Astro's adapter uses a pre-read `req.body` instead of reading the stream itself.
      (req as IncomingMessage & { body?: Buffer }).body = await readBody(req, route.bodyLimit);
    }

    if (route.kind === 'page') keepEdgeCspOnWriteHead(res);
    if (method === 'GET' && cacheKey !== undefined) cache.capture(cacheKey, req, res);
    const handler = deps.handlers?.get(route.path);
    if (handler) {
      const body = (req as IncomingMessage & { body?: Buffer }).body;
      const target = new URL(req.url!, `${deps.https ? 'https' : 'http'}://${deps.siteHost()}`);
      const answer = await handler({ method, url: target, headers: req.headers, body }, deps.locals(requestId, clientKey));
      res.statusCode = answer.status;
      for (const name in answer.headers) res.setHeader(name, answer.headers[name]!);
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
        if (err) return sendError(res, route, toHttpError(err));
        if (route.kind === 'api') return sendError(res, route, new HttpError(404, 'not_found', { detail: `No API resource at ${pathname}.` }));
        if (notFoundPage && isRead) return sendStored(req, res, { ...notFoundPage, cacheControl: 'no-store' }, 404);
        res.statusCode = 404;
        res.setHeader('Content-Type', 'text/html; charset=utf-8');
        res.end('<!doctype html><title>Not found</title><h1>Not found</h1><p><a href="/">Home</a></p>');
      },
      deps.locals(requestId, clientKey),
    );
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', requestId);
    if (draining) res.setHeader('Connection', 'close');

    let url: URL | undefined;
    let refusal = 'The request target is not a valid path.';
    try {
      url = parseTarget(req.url ?? '');
    } catch (error) {
      if (!(error instanceof BadTarget)) throw error;
      refusal = error.message;
    }
    if (!url) {
      const route = routeOf('/api');
      applySecurityHeaders(res, route, deps.https);
      sendError(res, route, new HttpError(400, 'validation_failed', { detail: refusal }));
      return;
    }
    const route = routeOf(url.pathname);
    // Astro routes on req.url and builds its Request URL from Host: give it the path the edge
    // decided on (so limits, cache keys and routing agree) and our own host, never the client's
    // (a Host such as `x/api/chat?` or `a@b` would otherwise steer routing or break the URL).
    req.url = `${url.pathname}${url.search}`;
    req.headers.host = deps.siteHost();
    delete req.headers['x-forwarded-host'];
    applySecurityHeaders(res, route, deps.https);

    res.once('close', () => {
      // While draining, a connection whose last response just ended is idle: let it go now
      // rather than after the keep-alive timeout.
      if (draining) setImmediate(() => server.closeIdleConnections());
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      log.info(
        { reqId: requestId, method: req.method, path: url.pathname, status: res.statusCode, ms: Math.round(ms * 100) / 100, aborted: !res.writableFinished || undefined },
        'request',
      );
    });

    serve(req, res, url, route, requestId).catch((error: unknown) => {
      if (error instanceof ClientAbortedError || req.destroyed) {
        // The client went away mid-request: nothing to answer, nothing wrong on our side.
        res.statusCode = 499; // nginx's "client closed request", for the log line only
        res.destroy();
        return;
      }
      const httpError = toHttpError(error);
      if (httpError.status >= 500) log.error({ reqId: requestId, err: error }, 'unhandled error');
      sendError(res, route, httpError);
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
