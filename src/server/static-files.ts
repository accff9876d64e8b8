/**
 * Prebuilt files (dist/client: pages, assets, the prerendered /api/news and /sellers.json).
 * Start-up reads only the manifest the build wrote (src/server/static-manifest.ts): the lookup
 * by path stays a synchronous Map of metadata, and bodies are read from disk when first asked
 * for and kept in a byte-bounded hot cache of the variants actually served, so memory and
 * start-up time do not grow with the news archive. Serving known bytes from memory is what lets
 * the edge answer at node:http speed instead of Astro's (~250 us/request).
 *
 * Scheduled editions (the manifest's `editions`, src/lib/editions.ts): from each edition's
 * instant on, by the injected clock, its files answer their paths in place of the earlier ones,
 * so every instance serving one build switches at the same instant, without a restart. Until
 * then a path that will change is sent with a Cache-Control that lets no cache keep it past the
 * switch, and a path that does not exist yet is not found.
 *
 * A build run over the live DIST_DIR rewrites files under the running process; a read that finds
 * a file of another size or content than the manifest says refuses it (503) instead of sending
 * bytes from the other build with this build's headers and validators.
 */
import type { ReadStream } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { LRUCache } from 'lru-cache';
import { EDITIONS_DIR } from '../lib/editions.ts';
import { HttpError } from '../lib/http-error.ts';
import { strongEtag } from '../lib/http-validators.ts';
import { preferredCoding, type Coding } from './content-coding.ts';
import { readStaticManifest, STATIC_MANIFEST_PATH, VARIANT_SUFFIX, type StaticEntry } from './static-manifest.ts';

/** One file on disk that answers a path in one coding. */
export interface StaticBody {
  /** Path below dist/client: the file's, shared by its codings, and the coding's suffix (`.br`, `.gz`). */
  file: string;
  suffix: '' | '.br' | '.gz';
  size: number;
  /** `strongEtag` of its bytes, as the build saw them. */
  digest: string;
  /** The folder `file` is below when it is not dist/client: a scheduled edition's. */
  root?: string;
}

export interface StaticFile {
  contentType: string;
  /** Strong ETag of the identity bytes; a coding's own is derived (variantEtag). */
  etag: string;
  cacheControl: string;
  identity: StaticBody;
  br?: StaticBody;
  gzip?: StaticBody;
}

/**
 * What a cached body costs beyond its bytes: the Buffer object and its backing store's header,
 * and lru-cache's slot (key, value, size and list links).
 */
export const BODY_OVERHEAD_BYTES = 256;
/** Bodies above this share of the cache are streamed from disk and never cached. */
const STREAM_ABOVE_SHARE = 8;

export interface StaticFilesOptions {
  /** Bound of the hot cache, in bytes (STATIC_CACHE_MAX_BYTES). */
  maxBytes: number;
  /** Told once per file that changed on disk (a pino logger fits). */
  log: { warn(fields: object, message: string): void };
  /** The clock scheduled editions are served by, ms since the epoch (default Date.now). */
  now?: () => number;
}

/** A scheduled edition's files by URL path, served from `at` on. */
interface Edition {
  at: number;
  files: Map<string, StaticFile>;
}

/**
 * Cache-Control of a file that a scheduled edition will replace: revalidated on every use, so no
 * browser or CDN keeps it past the switch (RFC 9111 section 5.2.2.1, max-age=0 and must-revalidate).
 */
export const PENDING_CACHE_CONTROL = 'public, max-age=0, must-revalidate';

export class StaticFiles {
  readonly #files: Map<string, StaticFile>;
  readonly #hot: LRUCache<StaticBody, Buffer>;
  readonly #streamAbove: number;
  readonly #reading = new Map<StaticBody, Promise<Buffer>>();
  /** Files already reported as changed: one log line each (their number is bounded by the manifest). */
  readonly #reported = new Set<string>();
  readonly #log: StaticFilesOptions['log'];
  readonly #clientDir: string;
  /** Earliest first. */
  readonly #editions: Edition[];
  readonly #now: () => number;
  readonly #pending = new WeakMap<StaticFile, StaticFile>();

  constructor(clientDir: string, files: Map<string, StaticFile>, { maxBytes, log, now = Date.now }: StaticFilesOptions, editions: Edition[] = []) {
    this.#clientDir = clientDir;
    this.#files = files;
    this.#editions = editions;
    this.#now = now;
    this.#log = log;
    this.#streamAbove = Math.floor(maxBytes / STREAM_ABOVE_SHARE);
    this.#hot = new LRUCache<StaticBody, Buffer>({ maxSize: maxBytes, sizeCalculation: (bytes) => bytes.length + BODY_OVERHEAD_BYTES });
  }

  /**
   * Read DIST_DIR's manifest, and nothing else. `/x/index.html` also answers `/x` and `/x/`
   * (Astro's directory build format); `/404.html` is kept for the not-found page.
   */
  static async load(distDir: string, options: StaticFilesOptions): Promise<StaticFiles> {
    // JSON.parse gives every entry its own copy of "text/html; charset=utf-8" and the like, and an
    // edition's files would each hold their own copy of its folder's path: share one of each.
    const shared = new Map<string, string>();
    const intern = (text: string): string => shared.get(text) ?? (shared.set(text, text), text);
    // Each entry becomes a StaticFile as soon as its line is checked (static-manifest.ts says why).
    const manifest = await readStaticManifest(join(distDir, STATIC_MANIFEST_PATH), (entry, at) =>
      staticFileOf(entry, intern, at === undefined ? undefined : intern(join(distDir, EDITIONS_DIR, String(at)))),
    );
    const editions = (manifest.editions ?? []).map(({ at, files }) => ({ at, files: byUrlPath(files) }));
    return new StaticFiles(join(distDir, 'client'), byUrlPath(manifest.files), options, editions);
  }

  /** The file answering `urlPath` now: the latest edition's whose instant has come, else the build's. */
  get(urlPath: string): StaticFile | undefined {
    if (this.#editions.length === 0) return this.#files.get(urlPath);
    const now = this.#now();
    let pending = false;
    for (let i = this.#editions.length - 1; i >= 0; i--) {
      const { at, files } = this.#editions[i]!;
      const file = files.get(urlPath);
      if (file === undefined) continue;
      if (at <= now) return pending ? this.#pendingCopy(file) : file;
      pending = true;
    }
    const file = this.#files.get(urlPath);
    return file !== undefined && pending ? this.#pendingCopy(file) : file;
  }

  #pendingCopy(file: StaticFile): StaticFile {
    let copy = this.#pending.get(file);
    if (copy === undefined) this.#pending.set(file, (copy = { ...file, cacheControl: PENDING_CACHE_CONTROL }));
    return copy;
  }

  /** The coding to answer with (content-coding.ts `preferredCoding`); undefined: identity. */
  codingFor(file: StaticFile, acceptEncoding: string | undefined): Coding | undefined {
    // Most API clients send no Accept-Encoding: identity, without making the closure.
    if (acceptEncoding === undefined || (file.br === undefined && file.gzip === undefined)) return undefined;
    return preferredCoding((coding) => file[coding] !== undefined, acceptEncoding);
  }

  /** The body's bytes if the hot cache holds them: the synchronous fast path. */
  cached(body: StaticBody): Buffer | undefined {
    return this.#hot.get(body);
  }

  /**
   * The body from disk: whole and cached when it is small enough, otherwise a stream of the
   * open file. Rejects with a 503 HttpError when the file is gone or is not the one the
   * manifest describes.
   */
  read(body: StaticBody): Promise<Buffer | ReadStream> {
    if (body.size > this.#streamAbove) return this.#stream(body);
    let reading = this.#reading.get(body);
    if (reading === undefined) {
      reading = this.#readWhole(body).finally(() => this.#reading.delete(body));
      this.#reading.set(body, reading);
    }
    return reading;
  }

  /** Bytes the hot cache holds, as charged (never more than `maxBytes`). */
  get bytes(): number {
    return this.#hot.calculatedSize;
  }

  async #readWhole(body: StaticBody): Promise<Buffer> {
    const file = await this.#open(body);
    try {
      // Not from Buffer's shared pool: a small cached body must not keep a pool slab (Buffer.poolSize, 64 KiB on Node 24) alive.
      const bytes = Buffer.allocUnsafeSlow(body.size);
      let filled = 0;
      while (filled < body.size) {
        const { bytesRead } = await file.read(bytes, filled, body.size - filled, filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      if (filled < body.size) throw this.#changed(body, `it ended after ${filled} of ${body.size} bytes`);
      if (strongEtag(bytes) !== body.digest) throw this.#changed(body, 'its bytes differ from those the manifest was made from');
      this.#hot.set(body, bytes);
      return bytes;
    } finally {
      await file.close();
    }
  }

  async #stream(body: StaticBody): Promise<ReadStream> {
    // Too large to hash on every request: the size, taken from the open file, is the check.
    const file = await this.#open(body);
    return file.createReadStream({ start: 0, end: body.size - 1 });
  }

  /** Open the file and compare its size with the manifest's (fstat of the open file, so the bytes read are that file's). */
  async #open(body: StaticBody): Promise<FileHandle> {
    let file: FileHandle;
    try {
      file = await open(this.#pathOf(body), 'r');
    } catch (error) {
      throw this.#changed(body, `it cannot be opened (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    try {
      const { size } = await file.stat();
      if (size !== body.size) throw this.#changed(body, `it has ${size} bytes, the manifest says ${body.size}`);
      return file;
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  #pathOf(body: StaticBody): string {
    return join(body.root ?? this.#clientDir, body.file + body.suffix);
  }

  #changed(body: StaticBody, what: string): HttpError {
    const path = this.#pathOf(body);
    if (!this.#reported.has(path)) {
      this.#reported.add(path);
      this.#log.warn(
        { file: path },
        `a prebuilt file changed since start-up: ${path}: ${what}; answering 503 for it. Was a build run over the live DIST_DIR? Build into a new directory and restart (README "Static files")`,
      );
    }
    return new HttpError('service_unavailable', {
      detail: 'This file is being replaced by a new version of the site.',
      resolution: 'Try again in a minute.',
      headers: { 'retry-after': '60' },
    });
  }
}

/** The files by URL path: `/x/index.html` also answers `/x/` and `/x` (Astro's directory build format). */
function byUrlPath(entries: Record<string, StaticFile>): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const [urlPath, file] of Object.entries(entries)) {
    files.set(urlPath, file);
    if (urlPath.endsWith('/index.html')) {
      const dir = urlPath.slice(0, -'index.html'.length);
      files.set(dir, file);
      if (dir !== '/') files.set(dir.slice(0, -1), file);
    }
  }
  return files;
}

function staticFileOf(entry: StaticEntry, intern: (text: string) => string, root: string | undefined): StaticFile {
  const at = root === undefined ? {} : { root };
  const file: StaticFile = {
    contentType: intern(entry.contentType),
    etag: entry.etag,
    cacheControl: intern(entry.cacheControl),
    identity: { file: entry.file, suffix: '', size: entry.size, digest: entry.etag, ...at },
  };
  if (entry.br) file.br = { file: entry.file, suffix: VARIANT_SUFFIX.br, size: entry.br.size, digest: entry.br.digest, ...at };
  if (entry.gzip) file.gzip = { file: entry.file, suffix: VARIANT_SUFFIX.gzip, size: entry.gzip.size, digest: entry.gzip.digest, ...at };
  return file;
}
