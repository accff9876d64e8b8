/**
 * How the edge writes answers: its pending head (security headers, request id, CORS, rate-limit
 * headers, `Head` in head.ts), errors in the interface's format, stored answers (prebuilt files,
 * cached responses) with their validators and 304s, and the plain responses of endpoints,
 * streamed or not. One writer per edge; it holds what is built once per route or stored entry.
 */
import type { ReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PlainResponse } from '../lib/endpoint.ts';
import { renderError, toHttpError, type HttpError } from '../lib/http-error.ts';
import { ifNoneMatchMatches } from '../lib/http-validators.ts';
import { negotiate, type Coding } from './content-coding.ts';
import { createStoredHeads, setHeaderIn, type Head } from './head.ts';
import type { CachedResponse } from './response-cache.ts';
import type { Route } from './routes.ts';
import { securityHeaders } from './security.ts';
import type { StaticFile, StaticFiles } from './static-files.ts';

export class Responder {
  readonly #securityByRoute = new Map<Route, readonly string[]>();
  readonly #storedHeadOf = createStoredHeads();
  /** Set when the server drains: every response then closes its connection. */
  draining = false;

  readonly statics: StaticFiles;
  readonly https: boolean;

  constructor(statics: StaticFiles, https: boolean) {
    this.statics = statics;
    this.https = https;
  }

  /** The headers every response of `route` starts with: security, request id, Connection when draining. */
  startHead(route: Route, requestId: string): Head {
    let security = this.#securityByRoute.get(route);
    if (security === undefined) this.#securityByRoute.set(route, (security = securityHeaders(route, this.https)));
    const head: Head = security.slice();
    head.push('X-Request-Id', requestId);
    if (this.draining) head.push('Connection', 'close');
    return head;
  }

  /** Hand the pending headers to the response, for a handler that writes its own (Astro, probes). */
  flushHead(res: ServerResponse, head: Head): void {
    for (let i = 0; i < head.length; i += 2) res.setHeader(head[i] as string, head[i + 1]!);
    head.length = 0;
    // Astro never answers a limited request with a 304: the data API's 304s come from the
    // response cache (sendStored) or its endpoint (sendPlain), both settled with their status. A
    // writeHead wrapper per request for the rest cost ~100 MiB of RSS under the distinct-client
    // flood of test/e2e/memory-bounds.test.ts, so there is none.
    head.onStatus = undefined;
  }

  /** Write the status and every pending header at once, after the limiter has seen the status. */
  writeHead(res: ServerResponse, status: number, head: Head): void {
    const replaced = head.onStatus?.(status);
    if (replaced) for (const name in replaced) setHeaderIn(head, name, replaced[name]!);
    res.writeHead(status, head);
  }

  sendError(res: ServerResponse, route: Route, head: Head, error: HttpError): void {
    const rendered = renderError(error, route.path);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const name in rendered.headers) head.push(name, rendered.headers[name]!);
    head.push('Content-Length', Buffer.byteLength(rendered.body));
    this.writeHead(res, rendered.status, head);
    res.end(res.req.method === 'HEAD' ? undefined : rendered.body);
  }

  /**
   * An endpoint's plain response: its headers over the pending ones, the limiter's word on the
   * final status, then bytes with their length or a stream as it comes. A client that leaves
   * mid-stream ends the pipeline, which cancels the stream (and whatever feeds it).
   */
  async sendPlain(res: ServerResponse, head: Head, answer: PlainResponse): Promise<void> {
    const onStatus = head.onStatus;
    this.flushHead(res, head);
    res.statusCode = answer.status;
    for (const name in answer.headers) res.setHeader(name, answer.headers[name]!);
    const replaced = onStatus?.(answer.status);
    if (replaced) for (const name in replaced) res.setHeader(name, replaced[name]!);
    const { body } = answer;
    if (body instanceof ReadableStream) {
      if (res.req.method === 'HEAD') {
        await body.cancel();
        res.end();
        return;
      }
      // Sent as it is produced: no Content-Length, chunked (RFC 9112 section 7.1).
      res.flushHeaders();
      await pipeline(Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>), res).catch(() => {});
      return;
    }
    // Encoded once: for the Content-Length, the socket and the response cache's copy.
    const bytes = typeof body === 'string' ? Buffer.from(body) : body;
    if (bytes !== null) res.setHeader('content-length', bytes.byteLength);
    res.end(bytes ?? undefined); // node sends no body for HEAD
  }

  /** Write a cached response with validators; 304 when the client already has it. */
  sendStored(req: IncomingMessage, res: ServerResponse, head: Head, entry: CachedResponse): void {
    const { bytes, encoding } = negotiate(entry.body, req.headers['accept-encoding']);
    this.#writeStored(req, res, head, entry, encoding, bytes.length, bytes, ifNoneMatchMatches(req.headers['if-none-match'], entry.etag), 200);
  }

  /**
   * Write a prebuilt file: from the hot cache when it holds the bytes, otherwise read from disk
   * first. A 304 or a HEAD needs no bytes (the manifest gives the length), so it reads nothing.
   */
  sendFile(req: IncomingMessage, res: ServerResponse, route: Route, head: Head, file: StaticFile, status = 200): void | Promise<void> {
    const { statics } = this;
    const encoding = statics.codingFor(file, req.headers['accept-encoding']);
    const body = encoding === undefined ? file.identity : file[encoding]!;
    const notModified = status === 200 && ifNoneMatchMatches(req.headers['if-none-match'], file.etag);
    const bytes = notModified || req.method === 'HEAD' ? undefined : statics.cached(body);
    if (bytes !== undefined || notModified || req.method === 'HEAD') return this.#writeStored(req, res, head, file, encoding, body.size, bytes, notModified, status);
    return statics.read(body).then(
      (read) => this.#writeStored(req, res, head, file, encoding, body.size, read, false, status),
      (error: unknown) => this.sendError(res, route, head, toHttpError(error)),
    );
  }

  /** Known bytes with their validators; the 304 carries what a 200 would, except the body's own fields (RFC 9110 section 15.4.5). */
  #writeStored(req: IncomingMessage, res: ServerResponse, head: Head, entry: StaticFile | CachedResponse, encoding: Coding | undefined, length: number, body: Buffer | ReadStream | undefined, notModified: boolean, status: number): void {
    const stored = this.#storedHeadOf(entry, encoding);
    if (stored.csp !== undefined) setHeaderIn(head, 'Content-Security-Policy', stored.csp);
    if (notModified) {
      for (let i = 0; i < stored.head.length; i += 2) {
        const name = stored.head[i] as string;
        if (name !== 'Content-Type' && name !== 'content-type' && name !== 'Content-Encoding') head.push(name, stored.head[i + 1]!);
      }
      this.writeHead(res, 304, head);
      res.end();
      return;
    }
    for (let i = 0; i < stored.head.length; i++) head.push(stored.head[i]!);
    head.push('Content-Length', length);
    this.writeHead(res, status, head);
    if (body === undefined || Buffer.isBuffer(body)) res.end(req.method === 'HEAD' ? undefined : body);
    // A large file streamed from disk; on an error mid-way (client gone, file cut short) pipeline destroys both ends.
    else pipeline(body, res).catch(() => {});
  }
}
