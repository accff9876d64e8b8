/**
 * The edge's pending response headers (`Head`) and the representation headers of stored answers
 * (prebuilt files, cached responses), built once per entry and content coding.
 */
import { variantEtag } from '../lib/http-validators.ts';
import type { CachedResponse } from './response-cache.ts';
import type { StaticFile } from './static-files.ts';

/**
 * Response headers not yet written, as the flat `[name, value, ...]` list `writeHead` takes: the
 * route's security block, the request id, CORS and rate-limit headers. Answers the edge makes
 * itself (prebuilt files, cache hits, errors) add their own and write everything with one
 * `writeHead`; `setHeader` per header cost about a microsecond each, with its validation and the
 * header map it maintains. Before a handler that sets headers itself (Astro, probes) the list is
 * moved onto the response and left empty.
 */
export type Head = Array<string | number | string[]>;

/** Representation headers of a stored answer, per content coding, built on first use. */
interface StoredHeads {
  identity?: Head;
  br?: Head;
  gzip?: Head;
  /** The CSP the stored response brought (the edge's, or a cached page's two): replaces the pending one. */
  csp: string | string[] | undefined;
}

/** The representation headers of a stored answer in one coding (validators included), per entry. */
export function createStoredHeads(): (entry: StaticFile | CachedResponse, encoding: 'br' | 'gzip' | undefined) => { head: Head; csp: string | string[] | undefined } {
  const storedHeads = new WeakMap<StaticFile | CachedResponse, StoredHeads>();
  return (entry, encoding) => {
    let heads = storedHeads.get(entry);
    if (heads === undefined) storedHeads.set(entry, (heads = { csp: 'headers' in entry ? entry.headers['content-security-policy'] : undefined }));
    const key = encoding ?? 'identity';
    let head = heads[key];
    if (head === undefined) {
      head = [];
      if ('contentType' in entry) head.push('Content-Type', entry.contentType, 'Cache-Control', entry.cacheControl);
      else for (const name in entry.headers) if (name !== 'etag' && name !== 'content-security-policy') head.push(name, entry.headers[name]!);
      // Each encoding is its own representation, so its strong validator differs (RFC 9110 section 8.8.3).
      head.push('ETag', variantEtag(entry.etag, encoding), 'Vary', 'Accept-Encoding');
      if (encoding) head.push('Content-Encoding', encoding);
      heads[key] = head;
    }
    return { head, csp: heads.csp };
  };
}

/** Set a header (any case) in a pending list, replacing its value if it is there. */
export function setHeaderIn(head: Head, name: string, value: string | string[]): void {
  const lower = name.toLowerCase();
  for (let i = 0; i < head.length; i += 2) {
    if (String(head[i]).toLowerCase() === lower) {
      head[i + 1] = value;
      return;
    }
  }
  head.push(name, value);
}
