/**
 * The edge: a thin node:http layer in front of Astro's handler. It owns what every request
 * shares (request id and logging, client identity, rate limits and their headers, security
 * headers, body-size limits, prebuilt files and cached GET responses served from memory) and
 * knows no route's logic: only policies by path and the standard caching headers endpoints set.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { EXPOSED_HEADERS } from '../lib/cors.ts';
import type { Services } from '../app/services.ts';
import { bodyLimitFor, ClientAbortedError, readBody } from './body.ts';
import { HttpError, renderError, toHttpError } from '../lib/http-error.ts';
import { ResponseCache, type CachedResponse } from './response-cache.ts';
import { applySecurityHeaders, isApiPath, keepEdgeCspOnWriteHead } from './security.ts';
import { etagMatches, negotiate, variantEtag, type StaticFile, type StaticFiles } from './static-files.ts';

/** Astro's Node adapter handler in middleware mode. */
export type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void, locals: App.Locals) => void | Promise<void>;

/** What the edge asks the rate limiter; `null` means the path is not limited. */
export interface EdgeLimiter {
  check(method: string, pathname: string, clientKey: string): Promise<LimitOutcome | null>;
}
export interface LimitOutcome {
  /** Headers every response of this request carries (RateLimit-*, X-RateLimit-*). */
  headers: Record<string, string>;
  /** Present when the request is refused; rendered as 429 before any other work. */
  refused?: HttpError;
}

export interface EdgeDeps {
  services: Services;
  log: Logger;
  astro: AstroHandler;
  statics: StaticFiles;
  cache: ResponseCache;
  limiter?: EdgeLimiter;
  clientKey?: (req: IncomingMessage) => string;
  /** Origins whose pages may call the write endpoints and read the limit headers (read per request: PORT=0 learns its origin at listen). */
  allowedOrigins: () => readonly string[];
  https: boolean;
}

const EXPOSED = EXPOSED_HEADERS.join(', ');
/** Read-only public resources anyone may fetch from a browser. */
const PUBLIC_READ = (pathname: string) => pathname === '/api/news' || pathname === '/sellers.json' || pathname === '/openapi.json' || pathname.startsWith('/api/v1/public/');
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

/**
 * The path and query of an origin-form or absolute-form target (RFC 9112 section 3.2), with
 * repeated slashes collapsed so `//api/chat` is `/api/chat` for every layer; undefined when it
 * is neither. Resolved against a fixed base by concatenation, never as a relative reference,
 * so `//host/path` cannot become a different host and path.
 */
export function parseTarget(target: string): URL | undefined {
  let path: string;
  if (target.startsWith('/')) path = target;
  else if (/^https?:\/\//i.test(target)) {
    try {
      const absolute = new URL(target);
      path = `${absolute.pathname}${absolute.search}`;
    } catch {
      return undefined;
    }
  } else return undefined;
  const query = path.indexOf('?');
  const pathname = (query === -1 ? path : path.slice(0, query)).replace(/\/{2,}/g, '/');
  try {
    return new URL(`http://edge.invalid${pathname}${query === -1 ? '' : path.slice(query)}`);
  } catch {
    return undefined;
  }
}

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
  const { log, statics, cache, limiter, services, astro } = deps;
  const clientKeyOf = deps.clientKey ?? socketKey;
  const notFoundPage = statics.get('/404.html');
  let draining = false;
  // The site's host, re-derived only when SITE_URL changes (PORT=0 learns its port at listen).
  let siteHostFor = '';
  let siteHostValue = '';
  const siteHost = () => {
    if (siteHostFor !== services.config.SITE_URL) {
      siteHostFor = services.config.SITE_URL;
      siteHostValue = new URL(siteHostFor).host;
    }
    return siteHostValue;
  };

  function sendError(res: ServerResponse, pathname: string, error: HttpError): void {
    const rendered = renderError(error, pathname);
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
    if (status === 200 && etagMatches(req.headers['if-none-match'], entry.etag)) {
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

  function applyCors(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    const origin = req.headers.origin;
    if (PUBLIC_READ(pathname) && (req.method === 'GET' || req.method === 'HEAD')) {
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.setHeader('Access-Control-Expose-Headers', EXPOSED);
    } else if (origin && deps.allowedOrigins().includes(origin)) {
      res.setHeader('Access-Control-Allow-Origin', origin);
      res.setHeader('Access-Control-Expose-Headers', EXPOSED);
      res.setHeader('Vary', 'Origin');
    }
  }

  async function route(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
    const { pathname } = url;
    const method = req.method ?? 'GET';

    if (pathname === '/healthz') {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) }));
      return;
    }
    if (pathname === '/readyz') {
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      try {
        await services.db.ping();
        res.end(JSON.stringify({ status: 'ready', database: services.db.engine }));
      } catch (error) {
        res.statusCode = 503;
        // The reason goes to the log, not to whoever polls the probe (it may name hosts or paths).
        log.warn({ err: error }, 'readiness check failed');
        res.end(JSON.stringify({ status: 'unavailable', database: services.db.engine }));
      }
      return;
    }

    if (!KNOWN_METHODS.has(method)) {
      // TRACE, CONNECT and inventions: refused here, before the Fetch Request Astro builds
      // (which cannot represent some of them) turns them into a 500.
      return sendError(res, pathname, new HttpError(405, 'method_not_allowed', { detail: `${method} is not supported.`, headers: { allow: 'GET, HEAD, POST, OPTIONS' } }));
    }
    const clientKey = clientKeyOf(req);
    if (isApiPath(pathname)) applyCors(req, res, pathname);

    // Limits come first so that a refused request costs no body parsing, database or assistant.
    if (limiter) {
      const outcome = await limiter.check(method, pathname, clientKey);
      if (outcome) {
        for (const [name, value] of Object.entries(outcome.headers)) res.setHeader(name, value);
        if (outcome.refused) return sendError(res, pathname, outcome.refused);
      }
    }

    const isRead = method === 'GET' || method === 'HEAD';
    let cacheKey: string | undefined;
    // Prebuilt files answer whatever the query string (?utm_source=… on a page, a cache-buster on
    // /api/news), like any static server; methods other than GET and HEAD get 405.
    const file = statics.get(pathname) ?? (pathname.length > 1 && pathname.endsWith('/') ? statics.get(pathname.slice(0, -1)) : undefined);
    if (file && !isRead) {
      return sendError(res, pathname, new HttpError(405, 'method_not_allowed', { detail: `${pathname} only answers GET and HEAD.`, headers: { allow: 'GET, HEAD' } }));
    }
    if (isRead) {
      if (file) return sendStored(req, res, file);
      cacheKey = ResponseCache.keyOf(url);
      const hit = cache.get(cacheKey);
      if (hit) return sendStored(req, res, hit);
    } else if (method !== 'OPTIONS') {
      const limit = bodyLimitFor(pathname);
      // Astro's adapter uses a pre-read `req.body` instead of reading the stream itself.
      (req as IncomingMessage & { body?: Buffer }).body = await readBody(req, limit);
    }

    if (!isApiPath(pathname)) keepEdgeCspOnWriteHead(res);
    if (method === 'GET' && cacheKey) cache.capture(cacheKey, req, res);
    const locals: App.Locals = { services, requestId, clientKey };
    await astro(req, res, (err?: unknown) => {
      if (err) return sendError(res, pathname, toHttpError(err));
      if (pathname.startsWith('/api/') || isApiPath(pathname)) {
        return sendError(res, pathname, new HttpError(404, 'not_found', { detail: `No API resource at ${pathname}.` }));
      }
      if (notFoundPage && isRead) return sendStored(req, res, { ...notFoundPage, cacheControl: 'no-store' }, 404);
      res.statusCode = 404;
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end('<!doctype html><title>Not found</title><h1>Not found</h1><p><a href="/">Home</a></p>');
      return;
    }, locals);
  }

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const started = process.hrtime.bigint();
    const incomingId = req.headers['x-request-id'];
    const requestId = typeof incomingId === 'string' && REQUEST_ID.test(incomingId) ? incomingId : randomUUID();
    res.setHeader('X-Request-Id', requestId);
    if (draining) res.setHeader('Connection', 'close');

    const url = parseTarget(req.url ?? '');
    if (!url) {
      applySecurityHeaders(res, '/api/', deps.https);
      sendError(res, '/', new HttpError(400, 'validation_failed', { detail: 'The request target is not a valid path.' }));
      return;
    }
    // Astro routes on req.url and builds its Request URL from Host: give it the path the edge
    // decided on (so limits, cache keys and routing agree) and our own host, never the client's
    // (a Host such as `x/api/chat?` or `a@b` would otherwise steer routing or break the URL).
    req.url = `${url.pathname}${url.search}`;
    req.headers.host = siteHost();
    delete req.headers['x-forwarded-host'];
    applySecurityHeaders(res, url.pathname, deps.https);

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

    route(req, res, url, requestId).catch((error: unknown) => {
      if (error instanceof ClientAbortedError || req.destroyed) {
        // The client went away mid-request: nothing to answer, nothing wrong on our side.
        res.statusCode = 499; // nginx's "client closed request", for the log line only
        res.destroy();
        return;
      }
      const httpError = toHttpError(error);
      if (httpError.status >= 500) log.error({ reqId: requestId, err: error }, 'unhandled error');
      sendError(res, url.pathname, httpError);
    });
  }

  const server = createServer(
    {
      // Bound how long a client may take to send its request (slowloris), checked every 5 s
      // instead of Node's default 30 s; streamed replies are unaffected.
      requestTimeout: 30_000,
      headersTimeout: 15_000,
      connectionsCheckingInterval: 5_000,
      keepAliveTimeout: 5_000,
    },
    handle,
  );
  // Expect: 100-continue (RFC 9110 section 10.1.1): refuse an announced oversize body before
  // the client sends it, instead of inviting it and answering 413 afterwards.
  server.on('checkContinue', (req, res) => {
    const declared = Number(req.headers['content-length']);
    const path = parseTarget(req.url ?? '')?.pathname ?? '/';
    if (Number.isFinite(declared) && declared > bodyLimitFor(path)) {
      res.setHeader('Connection', 'close');
      handle(req, res);
      return;
    }
    res.writeContinue();
    handle(req, res);
  });
  // Requests Node's parser refuses (bad syntax, header overflow, timeouts) get a problem body
  // too, not a bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const error400 =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? new HttpError(431, 'headers_too_large')
        : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? new HttpError(408, 'request_timeout')
          : new HttpError(400, 'validation_failed', { detail: 'The request is not valid HTTP/1.1.' });
    const { status, headers, body } = renderError(error400, '/');
    const head = Object.entries({ ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' })
      .map(([name, value]) => `${name}: ${value}`)
      .join('\r\n');
    socket.end(`HTTP/1.1 ${status} ${error400.title}\r\n${head}\r\n\r\n${body}`);
  });
  // CONNECT is for proxies; we are not one.
  server.on('connect', (_req, socket) => {
    socket.end('HTTP/1.1 405 Method Not Allowed\r\nallow: GET, HEAD, POST, OPTIONS\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  return {
    server,
    handle,
    startDraining: () => {
      draining = true;
    },
  };
}
