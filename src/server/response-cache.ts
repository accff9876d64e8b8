/**
 * The one response cache: serialised GET responses of on-demand endpoints, keyed by the route
 * table's canonical key (src/server/routes.ts `cacheKeyOf`: path and only the parameters the
 * route reads), kept for as long as the endpoint's Cache-Control allows (RFC 9111, via
 * http-cache-semantics) and never longer than `maxTtlMs`, so instances that cannot see each
 * other's purges still converge within that bound. Bounded by bytes (lru-cache `maxSize`).
 * Only content headers are stored; per-client headers (rate limits, request id) never are.
 */
import type { IncomingHttpHeaders } from 'node:http';
import CachePolicy from 'http-cache-semantics';
import { LRUCache } from 'lru-cache';
import { strongEtag } from '../lib/http-validators.ts';
import { storeBody, type StoredBody } from './content-coding.ts';

export interface CachedResponse {
  status: number;
  /** Content headers; a repeated header (two CSP policies) stays a list. */
  headers: Record<string, string | string[]>;
  body: StoredBody;
  etag: string;
}

/**
 * Headers that describe the representation, and so may be replayed to any client. The data
 * interface's settlement headers (src/features/stats/settled.ts) describe its body too: a hit
 * without them would hide which days are final.
 */
const CONTENT_HEADERS = [
  'content-type', 'cache-control', 'etag', 'last-modified', 'content-language', 'expires', 'content-security-policy',
  'x-data-settled-through', 'x-data-missing-days',
];
/** Bodies larger than this are sent uncached. */
export const MAX_ENTRY_BYTES = 1024 * 1024;
/**
 * What an entry costs beyond its key and body bytes: the entry and header objects, the Buffer
 * headers, lru-cache's bookkeeping and TTL slots. Measured with test/e2e/memory-bounds.test.ts
 * (RSS growth per entry with tiny bodies) and rounded up.
 */
export const ENTRY_OVERHEAD_BYTES = 1024;

export interface ResponseCacheOptions {
  maxBytes: number;
  maxTtlMs: number;
}

/**
 * How long RFC 9111 lets a shared cache keep a 200 to a GET (ms; 0: not storable), by
 * http-cache-semantics. Where the answer can only depend on the response's Cache-Control (the
 * request has no Cache-Control, Pragma or Authorization, the response no Expires or
 * Last-Modified, and the cache sets no Date or Age), it is the same for the same Cache-Control
 * value: each value is read once (the data API's cache miss parsed it on every store). Bounded
 * as the other memos: a data answer's value changes at most once a second.
 */
const lifetimes = new Map<string, number>();
const LIFETIMES_MAX = 64;

function lifetimeOf(key: string, requestHeaders: IncomingHttpHeaders, headers: Record<string, string | string[]>): number {
  const cacheControl = headers['cache-control'];
  const simple =
    typeof cacheControl === 'string' &&
    requestHeaders['cache-control'] === undefined && requestHeaders['pragma'] === undefined && requestHeaders['authorization'] === undefined &&
    headers['expires'] === undefined && headers['last-modified'] === undefined;
  let ttl = simple ? lifetimes.get(cacheControl) : undefined;
  if (ttl === undefined) {
    const policy = new CachePolicy({ url: key, method: 'GET', headers: requestHeaders }, { status: 200, headers: { ...headers } as Record<string, string> }, { shared: true });
    ttl = policy.storable() ? policy.timeToLive() : 0;
    if (simple) {
      if (lifetimes.size >= LIFETIMES_MAX) lifetimes.clear();
      lifetimes.set(cacheControl, ttl);
    }
  }
  return ttl;
}

export class ResponseCache {
  readonly #lru: LRUCache<string, CachedResponse>;
  readonly #maxTtlMs: number;

  constructor({ maxBytes, maxTtlMs }: ResponseCacheOptions) {
    this.#maxTtlMs = maxTtlMs;
    this.#lru = new LRUCache<string, CachedResponse>({
      maxSize: maxBytes,
      // Everything an entry holds: its key (V8 keeps a URL key as one byte per character; UTF-16
      // if it has wider ones, hence byteLength * 2 as the bound), the identity bytes plus room for
      // the variants made on demand (each smaller than the identity), the stored header values,
      // and the fixed overhead. Counting only the body let 9,000 entries with 12 KB keys grow the
      // process by 210 MB while the cache believed it held 4 MB.
      sizeCalculation: (entry, key) => ResponseCache.sizeOf(entry, key),
      ttlAutopurge: false,
    });
  }

  /** The bytes an entry is charged with (see the constructor). */
  static sizeOf(entry: CachedResponse, key: string): number {
    let headerBytes = 0;
    for (const [name, value] of Object.entries(entry.headers)) headerBytes += name.length + (Array.isArray(value) ? value.join('').length : value.length);
    return key.length * 2 + entry.body.identity.length * 2 + headerBytes * 2 + ENTRY_OVERHEAD_BYTES;
  }

  /** Bytes held, as charged by `sizeOf` (never more than `maxBytes`). */
  get bytes(): number {
    return this.#lru.calculatedSize;
  }

  get(key: string): CachedResponse | undefined {
    return this.#lru.get(key);
  }

  get size(): number {
    return this.#lru.size;
  }

  /** Drop every entry whose key starts with `pathPrefix`. */
  purge(pathPrefix: string): number {
    let dropped = 0;
    for (const key of [...this.#lru.keys()]) {
      if (key.startsWith(pathPrefix)) {
        this.#lru.delete(key);
        dropped++;
      }
    }
    return dropped;
  }

  clear(): void {
    this.#lru.clear();
  }

  /**
   * Keep a finished GET answer under `key` if RFC 9111 lets a shared cache store it (http-cache-
   * semantics reads the endpoint's Cache-Control and the request's Authorization), for at most
   * `maxTtlMs`. Called by the edge's stage after the endpoint with the plain response it is about
   * to write; only content headers are kept. Returns the entry it made (which the cache may evict
   * at once when it is smaller than the entry), or undefined when the answer is not for storing.
   */
  store(key: string, requestHeaders: IncomingHttpHeaders, status: number, responseHeaders: Readonly<Record<string, string | string[] | number | undefined>>, body: Buffer): CachedResponse | undefined {
    if (status !== 200 || body.length > MAX_ENTRY_BYTES) return undefined;
    const headers: Record<string, string | string[]> = {};
    for (const name of CONTENT_HEADERS) {
      const value = responseHeaders[name];
      if (value !== undefined) headers[name] = Array.isArray(value) ? value : String(value);
    }
    const vary = responseHeaders['vary'];
    // A response that varies on anything but encoding would need a secondary key; not cached.
    if (vary !== undefined && String(vary).toLowerCase().split(',').some((v) => v.trim() !== 'accept-encoding')) return undefined;
    if (responseHeaders['set-cookie'] !== undefined) return undefined;
    const ttl = Math.min(lifetimeOf(key, requestHeaders, headers), this.#maxTtlMs);
    if (ttl <= 0) return undefined;
    const contentType = String(headers['content-type'] ?? 'application/octet-stream');
    const etag = headers['etag'] === undefined ? strongEtag(body) : String(headers['etag']);
    headers['etag'] = etag;
    const entry: CachedResponse = { status: 200, headers, body: storeBody(body, contentType), etag };
    this.#lru.set(key, entry, { ttl });
    return entry;
  }
}
