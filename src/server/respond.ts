/**
 * How the edge makes and writes answers. The stages before the write produce an `Answer`: an
 * endpoint's plain response (the edge's own errors are plain responses too), or stored bytes (a
 * prebuilt file, a cached response) with their validators, or nothing left to write (Astro and
 * the probes write their own). The stage after the endpoint (http.ts) looks at the answer's
 * status and headers (refund, cache store, observation) before `write` sends it with the pending
 * head (security headers, request id, CORS, rate-limit headers, `Head` in head.ts).
 * One writer per edge; it holds what is built once per route or stored entry.
 */
import type { ReadStream } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PlainResponse } from '../lib/endpoint.ts';
import { renderError, type HttpError } from '../lib/http-error.ts';
import { ifNoneMatchMatches } from '../lib/http-validators.ts';
import { negotiate, type Coding } from './content-coding.ts';
import { createStoredHeads, setHeaderIn, type Head } from './head.ts';
import type { CachedResponse } from './response-cache.ts';
import type { Route } from './routes.ts';
import { securityHeaders } from './security.ts';
import type { StaticFile, StaticFiles } from './static-files.ts';

/** An endpoint's response, or an error the edge rendered (`edge`: its header names never repeat a pending one). */
export interface PlainAnswer {
  kind: 'plain';
  response: PlainResponse;
  edge: boolean;
}
/** Known bytes with their validators: a cached response or a prebuilt file. */
export interface StoredAnswer {
  kind: 'stored';
  entry: StaticFile | CachedResponse;
  /** 200, 304, or the not-found page's 404. */
  status: number;
  encoding: Coding | undefined;
  /** Content-Length of the representation. */
  length: number;
  /** Undefined for a 304 or a HEAD; a stream for a file too large for the hot cache. */
  body: Buffer | ReadStream | undefined;
  /** Where the bytes came from, for the observation: `cache`, the static hot cache, or disk. */
  source: 'cache' | 'hot' | 'disk';
}
/** A handler wrote the response itself (Astro's pages, the probes). */
export interface WrittenAnswer {
  kind: 'written';
}
export type Answer = PlainAnswer | StoredAnswer | WrittenAnswer;

export const WRITTEN: WrittenAnswer = { kind: 'written' };

/** An error as the answer of the route's interface (docs/interface.md section 5). */
export function errorAnswer(route: Route, error: HttpError): PlainAnswer {
  return { kind: 'plain', response: renderError(error, route.path), edge: true };
}

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
  }

  /** A cached response, or its 304 when the client already has it. */
  cached(req: IncomingMessage, entry: CachedResponse): StoredAnswer {
    const { bytes, encoding } = negotiate(entry.body, req.headers['accept-encoding']);
    const notModified = ifNoneMatchMatches(req.headers['if-none-match'], entry.etag);
    return { kind: 'stored', entry, status: notModified ? 304 : 200, encoding, length: bytes.length, body: notModified || req.method === 'HEAD' ? undefined : bytes, source: 'cache' };
  }

  /**
   * A prebuilt file: from the hot cache when it holds the bytes, otherwise read from disk first.
   * A 304 or a HEAD needs no bytes (the manifest gives the length), so it reads nothing.
   */
  file(req: IncomingMessage, file: StaticFile, status = 200): StoredAnswer | Promise<StoredAnswer> {
    const { statics } = this;
    const encoding = statics.codingFor(file, req.headers['accept-encoding']);
    const body = encoding === undefined ? file.identity : file[encoding]!;
    const notModified = status === 200 && ifNoneMatchMatches(req.headers['if-none-match'], file.etag);
    const answer: StoredAnswer = { kind: 'stored', entry: file, status: notModified ? 304 : status, encoding, length: body.size, body: undefined, source: 'hot' };
    if (notModified || req.method === 'HEAD') return answer;
    answer.body = statics.cached(body);
    if (answer.body !== undefined) return answer;
    answer.source = 'disk';
    return statics.read(body).then((read) => ((answer.body = read), answer));
  }

  /** Write an answer with the pending head; resolves with the body bytes handed to the socket. */
  write(res: ServerResponse, head: Head, answer: PlainAnswer | StoredAnswer): number | Promise<number> {
    if (res.headersSent) {
      // A handler that wrote its head and then failed: the only honest end is a cut connection.
      res.destroy();
      return 0;
    }
    if (answer.kind === 'stored') return this.#writeStored(res, head, answer);
    if (answer.edge) return this.#writeEdge(res, head, answer.response);
    return this.#writePlain(res, head, answer.response);
  }

  /** The edge's own error: one writeHead with everything. */
  #writeEdge(res: ServerResponse, head: Head, response: PlainResponse): number {
    const body = response.body as string;
    for (const name in response.headers) head.push(name, response.headers[name]!);
    const length = Buffer.byteLength(body);
    head.push('Content-Length', length);
    res.writeHead(response.status, head);
    if (res.req.method === 'HEAD') {
      res.end();
      return 0;
    }
    res.end(body);
    return length;
  }

  /**
   * An endpoint's plain response: its headers over the pending ones, then bytes with their length
   * or a stream as it comes (a HEAD gets the GET's head, no content). A client that leaves
   * mid-stream ends the pipeline, which cancels the stream (and whatever feeds it).
   */
  async #writePlain(res: ServerResponse, head: Head, response: PlainResponse): Promise<number> {
    const { body } = response;
    const isHead = res.req.method === 'HEAD';
    // A string goes to the socket as it is: node encodes it with the head, into memory freed when
    // the write is done (a Buffer of it would be a slice of a pool slab, held by the write).
    if (body !== null && !(body instanceof ReadableStream)) return writeBytes(res, head, response, body, isHead);
    this.flushHead(res, head);
    res.statusCode = response.status;
    for (const name in response.headers) res.setHeader(name, response.headers[name]!);
    if (body instanceof ReadableStream) {
      if (isHead) {
        await body.cancel();
        res.end();
        return 0;
      }
      // Sent as it is produced: no Content-Length, chunked (RFC 9112 section 7.1).
      res.flushHeaders();
      let sent = 0;
      const stream = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>).on('data', (chunk: Uint8Array) => void (sent += chunk.byteLength));
      await pipeline(stream, res).catch(() => {});
      return sent;
    }
    // No content (a 304, a 204): node frames it as setHeader left it.
    res.end();
    return 0;
  }

  /** Known bytes with their validators; the 304 carries what a 200 would, except the body's own fields (RFC 9110 section 15.4.5). */
  #writeStored(res: ServerResponse, head: Head, answer: StoredAnswer): number {
    const stored = this.#storedHeadOf(answer.entry, answer.encoding);
    if (stored.csp !== undefined) setHeaderIn(head, 'Content-Security-Policy', stored.csp);
    if (answer.status === 304) {
      for (let i = 0; i < stored.head.length; i += 2) {
        const name = stored.head[i] as string;
        if (name !== 'Content-Type' && name !== 'content-type' && name !== 'Content-Encoding') head.push(name, stored.head[i + 1]!);
      }
      res.writeHead(304, head);
      res.end();
      return 0;
    }
    for (let i = 0; i < stored.head.length; i++) head.push(stored.head[i]!);
    head.push('Content-Length', answer.length);
    res.writeHead(answer.status, head);
    const { body } = answer;
    if (body === undefined || Buffer.isBuffer(body)) {
      res.end(res.req.method === 'HEAD' ? undefined : body);
      return body === undefined || res.req.method === 'HEAD' ? 0 : body.length;
    }
    // A large file streamed from disk; on an error mid-way (client gone, file cut short) pipeline destroys both ends.
    pipeline(body, res).catch(() => {});
    return answer.length;
  }
}

/**
 * An endpoint's response with its body, bytes or a string: its headers over the pending ones
 * (same name in any case: the endpoint's value, in the pending one's place, as `setHeader` did),
 * its length in bytes, and one `writeHead` with everything, as the edge's own answers are
 * written. `setHeader` per header, with its validation and header map, was a few percent of a
 * cache miss.
 */
function writeBytes(res: ServerResponse, head: Head, response: PlainResponse, body: Uint8Array | string, isHead: boolean): number {
  const length = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  for (const name in response.headers) replaceOrPush(head, name, response.headers[name]!);
  replaceOrPush(head, 'content-length', length);
  res.writeHead(response.status, head);
  if (isHead) {
    res.end();
    return 0;
  }
  res.end(body);
  return length;
}

/** What `setHeader` does to a pending header of the same name (any case): name and value replaced in place; otherwise added. Lengths are compared before case-folding: most pending names differ in length. */
function replaceOrPush(head: Head, name: string, value: string | number): void {
  const lower = name.toLowerCase();
  for (let i = 0; i < head.length; i += 2) {
    const pending = head[i] as string;
    if (pending.length === lower.length && pending.toLowerCase() === lower) {
      head[i] = name;
      head[i + 1] = value;
      return;
    }
  }
  head.push(name, value);
}
