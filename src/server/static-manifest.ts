/**
 * The static manifest: what `astro build` leaves for the edge about every file of dist/client
 * (src/server/precompress.ts writes it, src/server/static-files.ts reads it at start-up), so
 * start-up reads one JSON file instead of the whole build, however large the news archive grows.
 * Kept in dist/server, which no static host serves. This schema is the one description of it.
 */
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { lookup } from 'mrmime';
import { z } from 'zod';

/** Where the manifest lives, relative to DIST_DIR. */
export const STATIC_MANIFEST_PATH = 'server/static-manifest.json';
/** Bumped when the format changes in a way an older reader would misread. */
export const STATIC_MANIFEST_VERSION = 1;

/** File name suffix of each coding's copy beside its file: the names nginx's gzip_static and brotli_static look for. */
export const VARIANT_SUFFIX = { br: '.br', gzip: '.gz' } as const;

/** A strong entity tag as `strongEtag` (src/lib/http-validators.ts) writes it. */
const Etag = z.string().regex(/^"[A-Za-z0-9_-]{27}"$/, 'must be a strong ETag of 27 base64url characters in quotes');
const Size = z.number().int().nonnegative();

/** A precompressed copy, stored beside the file as `<file>.br` / `<file>.gz` (the names nginx's *_static modules look for). */
export const StaticVariant = z.strictObject({
  size: Size,
  /** `strongEtag` of the variant's own bytes: checked when it is read, never sent. */
  digest: Etag,
});
export type StaticVariant = z.infer<typeof StaticVariant>;

export const StaticEntry = z.strictObject({
  /** Path below dist/client, '/'-separated, never leaving it. */
  file: z
    .string()
    .min(1)
    .refine((file) => !file.startsWith('/') && !file.split('/').some((part) => part === '..' || part === '' || part === '.'), 'must be a relative path inside dist/client'),
  size: Size,
  /** Strong ETag of the identity bytes (RFC 9110 section 8.8.3); each coding's is derived from it. */
  etag: Etag,
  contentType: z.string().min(1),
  cacheControl: z.string().min(1),
  br: StaticVariant.optional(),
  gzip: StaticVariant.optional(),
});
export type StaticEntry = z.infer<typeof StaticEntry>;

const Files = z.record(z.string().startsWith('/'), StaticEntry);

/**
 * A scheduled edition (src/features/news/schedule.ts): files served from `at` on, each in place
 * of the file of the same path (or where there was none). `file` is below dist/scheduled/<at>/.
 */
export const StaticEdition = z.strictObject({
  /** From when, in ms since the epoch. */
  at: z.number().int().positive(),
  files: Files,
});
export type StaticEdition = z.infer<typeof StaticEdition>;

export const StaticManifest = z.strictObject({
  version: z.literal(STATIC_MANIFEST_VERSION),
  /** URL path (`/news/index.html`) to its file; directory aliases are the reader's rule (see static-files.ts). */
  files: Files,
  /** Scheduled editions, earliest first; absent when nothing is scheduled. */
  editions: z.array(StaticEdition).optional(),
});
export type StaticManifest = z.infer<typeof StaticManifest>;

/** The manifest is missing or unusable; the message says what and what to do. */
export class StaticManifestError extends Error {
  readonly reason: 'missing' | 'malformed';
  constructor(message: string, reason: 'missing' | 'malformed') {
    super(message);
    this.name = 'StaticManifestError';
    this.reason = reason;
  }
}

/** Parse a manifest's text, refusing anything the schema does not describe (the first problem, with its path). */
export function parseStaticManifest(text: string, where: string): StaticManifest {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new StaticManifestError(`the static manifest ${where} is not JSON (${(error as Error).message}): run \`npm run build\``, 'malformed');
  }
  const result = StaticManifest.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const at = issue.path.length > 0 ? ` at ${issue.path.map(String).join('.')}` : '';
    throw new StaticManifestError(`the static manifest ${where} is malformed${at}: ${issue.message}: run \`npm run build\``, 'malformed');
  }
  return result.data;
}

/** Read and validate the manifest at `path`. */
export async function readStaticManifest(path: string): Promise<StaticManifest> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new StaticManifestError(`no static manifest at ${path} (a build from before manifests, or an interrupted one): run \`npm run build\``, 'missing');
    }
    throw error;
  }
  return parseStaticManifest(text, path);
}

/** Cache-Control by path: hashed assets forever, pages revalidated, the read APIs briefly. */
export function cacheControlFor(urlPath: string): string {
  if (urlPath.startsWith('/_astro/')) return 'public, max-age=31536000, immutable';
  // News changes when a deploy lands: let browsers hold it a minute, a CDN five.
  if (urlPath === '/api/news') return 'public, max-age=60, s-maxage=300, stale-while-revalidate=600';
  // Crawlers fetch sellers.json a few times a day; hours, not days.
  if (urlPath === '/sellers.json') return 'public, max-age=3600, s-maxage=3600';
  if (urlPath.endsWith('.html') || urlPath.endsWith('/')) return 'public, max-age=0, must-revalidate';
  // The search index's entry names its content-hashed chunks: a stale one would ask for chunks a
  // new build no longer has (src/app/search-index.ts).
  if (urlPath === '/pagefind/pagefind-entry.json') return 'public, max-age=0, must-revalidate';
  return 'public, max-age=3600';
}

/** The Content-Type of a built file, from its extension, or for an extension-less one from its bytes. */
export function contentTypeOf(file: string, bytes: Buffer): string {
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
