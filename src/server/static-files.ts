/**
 * Prebuilt files (dist/client: pages, assets, the prerendered /api/news and /sellers.json) held
 * in memory with their validators, pre-compressed once at start-up. Serving known bytes from
 * memory is what lets the edge answer at node:http speed instead of Astro's (~250 us/request).
 */
import { readdir, readFile } from 'node:fs/promises';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { lookup } from 'mrmime';
import { strongEtag } from '../lib/http-validators.ts';

export interface StoredBody {
  /** Identity bytes and their encoded variants. */
  identity: Buffer;
  br?: Buffer;
  gzip?: Buffer;
  /**
   * Variants not made yet but worth making on first demand (cached API responses: most API
   * clients send no Accept-Encoding, so a cache fill should not pay for compression).
   */
  lazy?: boolean;
}

export interface StaticFile {
  body: StoredBody;
  contentType: string;
  etag: string;
  cacheControl: string;
}

export type StaticFiles = Map<string, StaticFile>;

/** Cache-Control by path: hashed assets forever, pages revalidated, the read APIs briefly. */
export function cacheControlFor(urlPath: string): string {
  if (urlPath.startsWith('/_astro/')) return 'public, max-age=31536000, immutable';
  // News changes when a deploy lands: let browsers hold it a minute, a CDN five.
  if (urlPath === '/api/news') return 'public, max-age=60, s-maxage=300, stale-while-revalidate=600';
  // Crawlers fetch sellers.json a few times a day; hours, not days.
  if (urlPath === '/sellers.json') return 'public, max-age=3600, s-maxage=3600';
  if (urlPath.endsWith('.html') || urlPath.endsWith('/')) return 'public, max-age=0, must-revalidate';
  return 'public, max-age=3600';
}

function contentTypeOf(file: string, bytes: Buffer): string {
  const ext = extname(file).slice(1);
  // mrmime has no .ico; IANA registers image/vnd.microsoft.icon for it.
  const type = ext === 'ico' ? 'image/vnd.microsoft.icon' : ext ? lookup(ext) : undefined;
  if (type) return /^(text\/|application\/(json|javascript|xml|manifest))|\+xml$|\+json$/.test(type) ? `${type}; charset=utf-8` : type;
  // Prerendered endpoints without an extension (/api/news) are JSON by construction.
  try {
    JSON.parse(bytes.toString('utf8'));
    return 'application/json; charset=utf-8';
  } catch {
    return 'application/octet-stream';
  }
}

const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml|manifest\+json|rss\+xml)|image\/svg\+xml)/;

/**
 * Keep a body with its compressed variants. `eager` (prebuilt files, once at start-up) compresses
 * hard now; `lazy` (cache fills, on the request path) defers to the first client that asks, at
 * settings that cost ~0.1 ms instead of brotli-9's ~2 ms for a few KiB.
 */
export function storeBody(identity: Buffer, contentType: string, mode: 'eager' | 'lazy' = 'eager'): StoredBody {
  if (identity.length < 1024 || !COMPRESSIBLE.test(contentType)) return { identity };
  if (mode === 'lazy') return { identity, lazy: true };
  return withVariant(withVariant({ identity }, 'br', 9), 'gzip', 9);
}

function compress(bytes: Buffer, coding: 'br' | 'gzip', level: number): Buffer {
  return coding === 'br'
    ? brotliCompressSync(bytes, {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: level,
          // A window no larger than the input gives the same output without brotli allocating
          // and clearing 4 MiB of tables per call (2.2 ms for a 2.5 KiB body at the default).
          [zlib.BROTLI_PARAM_LGWIN]: Math.max(zlib.BROTLI_MIN_WINDOW_BITS, Math.min(zlib.BROTLI_MAX_WINDOW_BITS, Math.ceil(Math.log2(bytes.length)))),
          [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.length,
        },
      })
    : gzipSync(bytes, { level });
}

/** Add one encoded variant, kept only when it is smaller than the identity bytes. */
function withVariant(body: StoredBody, coding: 'br' | 'gzip', level: number): StoredBody {
  const encoded = compress(body.identity, coding, level);
  if (encoded.length < body.identity.length) body[coding] = encoded;
  return body;
}

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

/**
 * Load every file below `clientDir`. `/x/index.html` also answers `/x` and `/x/` (Astro's
 * directory build format); `/404.html` is kept for the not-found page.
 */
export async function loadStaticFiles(clientDir: string): Promise<StaticFiles> {
  const files: StaticFiles = new Map();
  for await (const full of walk(clientDir)) {
    const urlPath = `/${relative(clientDir, full).split(sep).join('/')}`;
    const bytes = await readFile(full);
    const contentType = contentTypeOf(full, bytes);
    const file: StaticFile = { body: storeBody(bytes, contentType), contentType, etag: strongEtag(bytes), cacheControl: cacheControlFor(urlPath) };
    files.set(urlPath, file);
    if (urlPath.endsWith('/index.html')) {
      const dir = urlPath.slice(0, -'index.html'.length);
      files.set(dir, file);
      if (dir !== '/') files.set(dir.slice(0, -1), file);
    }
  }
  return files;
}

/** Content-coding weights from Accept-Encoding (RFC 9110 section 12.5.3); names lower-cased. */
export function acceptedEncodings(header: string | undefined): Map<string, number> {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(name, Number.isFinite(weight) ? Math.min(Math.max(weight, 0), 1) : 0);
  }
  return weights;
}

/** Parsed Accept-Encoding values: browsers send a handful of distinct ones, so parse each once. */
const knownWeights = new Map<string, Map<string, number>>();
const KNOWN_WEIGHTS_MAX = 64;

function weightsOf(header: string): Map<string, number> {
  let weights = knownWeights.get(header);
  if (weights === undefined) {
    weights = acceptedEncodings(header);
    // Bounded against clients that send a new value each time: start over when full.
    if (knownWeights.size >= KNOWN_WEIGHTS_MAX) knownWeights.clear();
    knownWeights.set(header, weights);
  }
  return weights;
}

/**
 * Pick the encoding the client prefers among those we hold, brotli before gzip on a tie;
 * q=0 means "not acceptable", and `*` stands for any coding not named.
 */
export function negotiate(body: StoredBody, acceptEncoding: string | undefined): { bytes: Buffer; encoding?: 'br' | 'gzip' } {
  // No header: identity (RFC 9110 section 12.5.3), what most API clients get, without parsing.
  if (acceptEncoding === undefined) return { bytes: body.identity };
  const weights = weightsOf(acceptEncoding);
  const weightOf = (coding: string) => weights.get(coding) ?? weights.get('*') ?? 0;
  let best: { bytes: Buffer; encoding?: 'br' | 'gzip' } = { bytes: body.identity };
  let bestWeight = 0;
  for (const coding of ['br', 'gzip'] as const) {
    const weight = weightOf(coding);
    if (body.lazy && body[coding] === undefined && weight > bestWeight) withVariant(body, coding, coding === 'br' ? 5 : 6);
    const bytes = body[coding];
    if (bytes && weight > bestWeight) {
      best = { bytes, encoding: coding };
      bestWeight = weight;
    }
  }
  return best;
}
