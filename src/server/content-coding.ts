/**
 * Content codings (RFC 9110 section 8.4): which one a client prefers (Accept-Encoding, section
 * 12.5.3), and bodies kept with their compressed variants. Prebuilt files carry variants made at
 * build time (src/server/static-files.ts); cached API responses make theirs on first demand.
 */
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

export type Coding = 'br' | 'gzip';

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

/** Media types worth compressing: text, JSON, JavaScript, XML and SVG; images and fonts already are. */
const COMPRESSIBLE = /^(text\/|application\/(json|javascript|xml|manifest\+json|rss\+xml)|image\/svg\+xml)/;
/** Below this, a coding's header and framing eat most of what it saves. */
export const MIN_COMPRESSIBLE_BYTES = 1024;

/** Whether a body of this type and size gets compressed variants. */
export function isCompressible(contentType: string, size: number): boolean {
  return size >= MIN_COMPRESSIBLE_BYTES && COMPRESSIBLE.test(contentType);
}

/**
 * Keep a body with its compressed variants, made on the first request that asks for one, at
 * settings that cost ~0.1 ms instead of brotli-9's ~2 ms for a few KiB (cache fills happen on the
 * request path).
 */
export function storeBody(identity: Buffer, contentType: string): StoredBody {
  const own = ownBytes(identity);
  if (!isCompressible(contentType, own.length)) return { identity: own };
  return { identity: own, lazy: true };
}

/**
 * `bytes` in memory of their own. A Buffer under half of `Buffer.poolSize` (64 KiB on Node 24)
 * from `Buffer.from(string)`, `Buffer.concat` or zlib's sync calls is a slice of one of node's
 * shared pool slabs, and a slice kept for long keeps its whole slab alive: a cached 2.5 KiB data
 * answer could hold 64 KiB, 25 times what the cache's bound counts. Copying once when an entry is
 * kept costs a memcpy.
 */
export function ownBytes(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) return bytes;
  const own = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(own);
  return own;
}

/**
 * Brotli parameters for a body of `size` bytes. A window no larger than the input gives the same
 * output without brotli allocating and clearing 4 MiB of tables per call (2.2 ms for a 2.5 KiB
 * body at the default).
 */
export function brotliParams(size: number, quality: number): Record<number, number> {
  return {
    [zlib.BROTLI_PARAM_QUALITY]: quality,
    [zlib.BROTLI_PARAM_LGWIN]: Math.max(zlib.BROTLI_MIN_WINDOW_BITS, Math.min(zlib.BROTLI_MAX_WINDOW_BITS, Math.ceil(Math.log2(Math.max(size, 1))))),
    [zlib.BROTLI_PARAM_SIZE_HINT]: size,
  };
}

/** Add one encoded variant, kept only when it is smaller than the identity bytes. */
function withVariant(body: StoredBody, coding: Coding, level: number): StoredBody {
  const { identity } = body;
  const encoded = coding === 'br' ? brotliCompressSync(identity, { params: brotliParams(identity.length, level) }) : gzipSync(identity, { level });
  if (encoded.length < identity.length) body[coding] = ownBytes(encoded);
  return body;
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

const CODINGS = ['br', 'gzip'] as const;

/**
 * The coding the client prefers among those `has` says exist, brotli before gzip on a tie;
 * q=0 means "not acceptable", and `*` stands for any coding not named. Undefined: identity.
 * `has` may make a variant on demand (a lazy stored body) and says whether it exists then.
 */
export function preferredCoding(has: (coding: Coding) => boolean, acceptEncoding: string | undefined): Coding | undefined {
  // No header: identity (RFC 9110 section 12.5.3), what most API clients get, without parsing.
  if (acceptEncoding === undefined) return undefined;
  const weights = weightsOf(acceptEncoding);
  let best: Coding | undefined;
  let bestWeight = 0;
  for (const coding of CODINGS) {
    const weight = weights.get(coding) ?? weights.get('*') ?? 0;
    if (weight > bestWeight && has(coding)) {
      best = coding;
      bestWeight = weight;
    }
  }
  return best;
}

/** The bytes of a stored body in the coding the client prefers (see `preferredCoding`). */
export function negotiate(body: StoredBody, acceptEncoding: string | undefined): { bytes: Buffer; encoding?: Coding } {
  const encoding = preferredCoding((coding) => {
    if (body.lazy && body[coding] === undefined) withVariant(body, coding, coding === 'br' ? 5 : 6);
    return body[coding] !== undefined;
  }, acceptEncoding);
  return encoding === undefined ? { bytes: body.identity } : { bytes: body[encoding]!, encoding };
}
