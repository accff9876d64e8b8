/**
 * The static manifest: what `astro build` leaves for the edge about every file of dist/client
 * (src/server/precompress.ts writes it, src/server/static-files.ts reads it at start-up), so
 * start-up reads one file instead of the whole build, however large the news archive grows.
 * Kept in dist/server, which no static host serves. These schemas are the one description of it.
 *
 * One JSON document a line (NDJSON): a header, then a line for each file. Start-up reads it a
 * line at a time, so only each entry's final form lives long; the earlier single JSON document
 * held its whole text, its parsed tree and a checked copy at once, about 25 MB of RSS at 10,000
 * files (5,000 articles) for a moment, against about 12 MB now (bench/NOTES.md, 2026-11-28):
 * that moment was the process's peak RSS.
 */
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { lookup } from 'mrmime';
import { z } from 'zod';

/** Where the manifest lives, relative to DIST_DIR. */
export const STATIC_MANIFEST_PATH = 'server/static-manifest.ndjson';
/** Bumped when the format changes in a way an older reader would misread (2: NDJSON lines). */
export const STATIC_MANIFEST_VERSION = 2;

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

/** The first line. */
export const StaticManifestHeader = z.strictObject({ version: z.literal(STATIC_MANIFEST_VERSION) });

/** Each further line: one file, by the URL path it answers. */
export const StaticLine = StaticEntry.extend({
  /** URL path (`/news/index.html`); directory aliases are the reader's rule (see static-files.ts). */
  path: z.string().startsWith('/'),
  /**
   * Set for a scheduled edition's file (src/features/news/schedule.ts): ms since the epoch from
   * which it answers its path, in place of the build's file of that path (or where there was
   * none); `file` is then below dist/scheduled/<edition>/.
   */
  edition: z.number().int().positive().optional(),
});
export type StaticLine = z.infer<typeof StaticLine>;

/** The manifest as its readers hold it, with each entry in the reader's form `F`. */
export interface StaticManifestOf<F> {
  version: typeof STATIC_MANIFEST_VERSION;
  files: Record<string, F>;
  /** Scheduled editions, earliest first; absent when nothing is scheduled. */
  editions?: { at: number; files: Record<string, F> }[];
}
export type StaticManifest = StaticManifestOf<StaticEntry>;

/**
 * Turns each checked entry into the reader's form; `edition` is the scheduled edition's instant
 * for an edition's file, undefined for the build's own.
 */
export type EntryReader<F> = (entry: StaticEntry, edition: number | undefined) => F;

/** The manifest is missing or unusable; the message says what and what to do. */
export class StaticManifestError extends Error {
  readonly reason: 'missing' | 'malformed';
  constructor(message: string, reason: 'missing' | 'malformed') {
    super(message);
    this.name = 'StaticManifestError';
    this.reason = reason;
  }
}

/** The manifest's text: the header line, a line for each of the build's files, then each edition's files, earliest first. */
export function formatStaticManifest(manifest: StaticManifest): string {
  const lines = [JSON.stringify({ version: manifest.version } satisfies z.input<typeof StaticManifestHeader>)];
  const add = (files: Record<string, StaticEntry>, edition?: number) => {
    for (const [path, entry] of Object.entries(files)) lines.push(JSON.stringify({ path, ...(edition === undefined ? {} : { edition }), ...entry } satisfies z.input<typeof StaticLine>));
  };
  add(manifest.files);
  for (const { at, files } of manifest.editions ?? []) add(files, at);
  return `${lines.join('\n')}\n`;
}

/** Checks a manifest a line at a time, handing each entry to `read` as soon as it is checked. */
class ManifestReader<F> {
  #line = 0;
  #manifest: StaticManifestOf<F> | undefined;
  readonly #editions = new Map<number, Record<string, F>>();
  readonly #where: string;
  readonly #read: EntryReader<F>;

  constructor(where: string, read: EntryReader<F>) {
    this.#where = where;
    this.#read = read;
  }

  take(text: string): void {
    this.#line++;
    if (text.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (error) {
      throw new StaticManifestError(`the static manifest ${this.#where} is not JSON at line ${this.#line} (${(error as Error).message}): run \`npm run build\``, 'malformed');
    }
    if (this.#manifest === undefined) {
      this.#manifest = { version: this.#check(StaticManifestHeader, json).version, files: {} };
      return;
    }
    const { path, edition, ...entry } = this.#check(StaticLine, json);
    let files = this.#manifest.files;
    if (edition !== undefined) {
      files = this.#editions.get(edition) ?? {};
      this.#editions.set(edition, files);
    }
    files[path] = this.#read(entry, edition);
  }

  done(): StaticManifestOf<F> {
    if (this.#manifest === undefined) throw new StaticManifestError(`the static manifest ${this.#where} is empty: run \`npm run build\``, 'malformed');
    if (this.#editions.size === 0) return this.#manifest;
    const editions = [...this.#editions].sort(([a], [b]) => a - b).map(([at, files]) => ({ at, files }));
    return { ...this.#manifest, editions };
  }

  /** `value` as `schema` says, or an error naming the line, the field and the problem. */
  #check<T>(schema: z.ZodType<T>, value: unknown): T {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    const issue = result.error.issues[0]!;
    const field = issue.path.length > 0 ? ` (${issue.path.map(String).join('.')})` : '';
    throw new StaticManifestError(`the static manifest ${this.#where} is malformed at line ${this.#line}${field}: ${issue.message}: run \`npm run build\``, 'malformed');
  }
}

const asChecked: EntryReader<StaticEntry> = (entry) => entry;

/** Parse a manifest's whole text, refusing anything the schemas do not describe (the first problem, with its line). */
export function parseStaticManifest(text: string, where: string): StaticManifest {
  const reader = new ManifestReader(where, asChecked);
  for (const line of text.split('\n')) reader.take(line);
  return reader.done();
}

/**
 * Read and check the manifest at `path` a line at a time; `read` turns each entry into what the
 * caller keeps as soon as it is checked (default: the entry).
 */
export async function readStaticManifest(path: string): Promise<StaticManifest>;
export async function readStaticManifest<F>(path: string, read: EntryReader<F>): Promise<StaticManifestOf<F>>;
export async function readStaticManifest<F>(path: string, read?: EntryReader<F>): Promise<StaticManifestOf<F | StaticEntry>> {
  let file;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new StaticManifestError(`no static manifest at ${path} (a build older than this manifest format, or an interrupted one): run \`npm run build\``, 'missing');
    }
    throw error;
  }
  try {
    const reader = new ManifestReader<F | StaticEntry>(path, read ?? asChecked);
    for await (const line of file.readLines()) reader.take(line);
    return reader.done();
  } finally {
    await file.close();
  }
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
