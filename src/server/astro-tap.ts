/**
 * The one place the edge watches `res` instead of holding a plain response: while Astro's
 * handler renders a page (or answers a path the edge does not know). Astro's Node adapter writes
 * its Fetch Response to `res` itself, so there is no plain response to read afterwards; every
 * answer the route table's endpoints and the edge make (data, contact, chat, errors, prebuilt
 * files, cached answers) goes through the pipeline's stage after the endpoint instead, untapped.
 *
 * The tap does three things, all for Astro's answers only: keeps the edge's page CSP beside the
 * one Astro sends, counts the body bytes for the request's observation, and, for a cacheable GET
 * (the stats page), keeps a copy of the body so the response cache can store it.
 */
import type { ServerResponse } from 'node:http';
import { PAGE_CSP } from '../lib/csp.ts';
import { MAX_ENTRY_BYTES } from './response-cache.ts';

export interface AstroTap {
  /** Body bytes Astro wrote. */
  bytes: number;
  /** The body, when asked to collect and it stayed within the cache's entry bound. */
  body(): Buffer | undefined;
}

/**
 * Keep the edge's page policy when Astro sends its own CSP (with the page's script and style
 * hashes): both are sent as two policies, which browsers enforce together (CSP3 section 8.1),
 * instead of Astro's replacing the edge's.
 */
function keepEdgeCsp(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((a, i) => i > 0 && typeof a === 'object' && a !== null && !Array.isArray(a)) as Record<string, unknown> | undefined;
    const key = headers && Object.keys(headers).find((k) => k.toLowerCase() === 'content-security-policy');
    if (headers && key) {
      const theirs = headers[key];
      delete headers[key];
      res.setHeader('Content-Security-Policy', [...(Array.isArray(theirs) ? theirs.map(String) : [String(theirs)]), PAGE_CSP]);
    }
    return writeHead(...args);
  }) as typeof res.writeHead;
}

function bytesOf(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (typeof chunk === 'string') return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  return undefined;
}

/** Tap `res` before Astro writes anything: `page` keeps the edge's CSP, `collect` keeps the body. */
export function tapAstro(res: ServerResponse, { page, collect }: { page: boolean; collect: boolean }): AstroTap {
  if (page) keepEdgeCsp(res);
  const chunks: Buffer[] = [];
  let overflow = !collect;
  const tap: AstroTap = {
    bytes: 0,
    body: () => (overflow ? undefined : Buffer.concat(chunks)),
  };
  const seen = (chunk: unknown, encoding: unknown) => {
    const buf = bytesOf(chunk, encoding);
    if (!buf) return;
    tap.bytes += buf.length;
    if (overflow) return;
    if (tap.bytes > MAX_ENTRY_BYTES) {
      overflow = true;
      chunks.length = 0;
    } else chunks.push(Buffer.from(buf));
  };
  const write = res.write.bind(res) as (...a: unknown[]) => boolean;
  const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
  let ending = false;
  res.write = ((chunk: unknown, ...rest: unknown[]) => {
    if (!ending) seen(chunk, rest[0]);
    return write(chunk, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (typeof chunk !== 'function') seen(chunk, rest[0]);
    // A response whose end() writes its last chunk through write() (light-my-request's, some
    // wrappers) must not have that chunk counted twice.
    ending = true;
    return end(chunk, ...rest);
  }) as typeof res.end;
  return tap;
}
