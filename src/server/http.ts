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
import type { Services } from '../services.ts';
import { bodyLimitFor, readBody } from './body.ts';
import { HttpError, renderError, toHttpError } from './problem.ts';
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
        res.end(JSON.stringify({ status: 'unavailable', database: services.db.engine, reason: (error as Error).message }));
      }
      return;
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

    let url: URL;
    try {
      // Origin-form targets, and absolute-form ones which a server must also accept (RFC 9112
      // section 3.2.2); only the path and query matter here. The base is a placeholder.
      const target = req.url ?? '';
      if (target.startsWith('/')) url = new URL(target, 'http://edge.invalid');
      else if (/^https?:\/\//i.test(target)) {
        const absolute = new URL(target);
        url = new URL(`${absolute.pathname}${absolute.search}`, 'http://edge.invalid');
        req.url = `${absolute.pathname}${absolute.search}`;
      } else throw new Error('not a path');
    } catch {
      applySecurityHeaders(res, '/api/', deps.https);
      sendError(res, '/', new HttpError(400, 'validation_failed', { detail: 'The request target is not a valid path.' }));
      return;
    }
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
      const httpError = toHttpError(error);
      if (httpError.status >= 500) log.error({ reqId: requestId, err: error }, 'unhandled error');
      sendError(res, url.pathname, httpError);
    });
  }

  const server = createServer(
    {
      // Bound how long a client may take to send its request (slowloris); streamed replies are unaffected.
      requestTimeout: 30_000,
      headersTimeout: 15_000,
      keepAliveTimeout: 5_000,
    },
    handle,
  );
  return {
    server,
    handle,
    startDraining: () => {
      draining = true;
    },
  };
}
