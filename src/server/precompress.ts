/**
 * Build step: writes `<file>.br` and `<file>.gz` beside every compressible file of dist/client
 * and the static manifest (src/server/static-manifest.ts) into dist/server, as an Astro
 * integration run at `astro:build:done`, so any `astro build` (npm run build, the benchmark's, a
 * test's) leaves a build the server can start from. Compression runs on libuv's thread pool
 * (async zlib), several files at a time.
 */
import { existsSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, gzip } from 'node:zlib';
import type { AstroIntegration } from 'astro';
import { afterBuild } from '../lib/after-build.ts';
import { EDITIONS_DIR } from '../lib/editions.ts';
import { strongEtag } from '../lib/http-validators.ts';
import { brotliParams, isCompressible, type Coding } from './content-coding.ts';
import { cacheControlFor, contentTypeOf, formatStaticManifest, STATIC_MANIFEST_PATH, STATIC_MANIFEST_VERSION, VARIANT_SUFFIX, type StaticEntry, type StaticManifest } from './static-manifest.ts';

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

export interface PrecompressOptions {
  /** Brotli quality (0-11). */
  brotliQuality?: number;
}

export interface PrecompressResult {
  manifest: StaticManifest;
  files: number;
  /** Variant files written. */
  variants: number;
}

/**
 * Brotli 9: quality 11 took five to six times as long over a 1,000-article build for about 4 %
 * smaller copies, which would make the precompression step longer than the rest of the build.
 */
const DEFAULT_BROTLI_QUALITY = 9;
/** gzip's best level: it is cheap. */
const GZIP_LEVEL = 9;

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(full);
    else if (entry.isFile()) yield full;
  }
}

/** Run `task` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: readonly T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Write one coding's copy if it is smaller than the original; otherwise make sure no stale copy is left. */
async function writeVariant(full: string, bytes: Buffer, coding: Coding, level: number): Promise<StaticEntry['br']> {
  const encoded = coding === 'br' ? await brotliAsync(bytes, { params: brotliParams(bytes.length, level) }) : await gzipAsync(bytes, { level });
  const target = full + VARIANT_SUFFIX[coding];
  if (encoded.length >= bytes.length) {
    await rm(target, { force: true });
    return undefined;
  }
  await writeFile(target, encoded);
  return { size: encoded.length, digest: strongEtag(encoded) };
}

/** Precompress every file below `dir` and describe each by its URL path. */
async function describeTree(dir: string, quality: number): Promise<{ files: StaticManifest['files']; count: number; variants: number }> {
  const all: string[] = [];
  for await (const full of walk(dir)) all.push(full);
  const present = new Set(all);
  const originals = all.filter((full) => !Object.values(VARIANT_SUFFIX).some((suffix) => full.endsWith(suffix) && present.has(full.slice(0, -suffix.length))));

  const files: StaticManifest['files'] = {};
  let variants = 0;
  // Twice the cores: one file's read and writes overlap another's compression.
  await eachLimited(originals, availableParallelism() * 2, async (full) => {
    const file = relative(dir, full).split(sep).join('/');
    const bytes = await readFile(full);
    const contentType = contentTypeOf(full, bytes);
    const entry: StaticEntry = { file, size: bytes.length, etag: strongEtag(bytes), contentType, cacheControl: cacheControlFor(`/${file}`) };
    if (isCompressible(contentType, bytes.length)) {
      const [br, gz] = await Promise.all([writeVariant(full, bytes, 'br', quality), writeVariant(full, bytes, 'gzip', GZIP_LEVEL)]);
      if (br) entry.br = br;
      if (gz) entry.gzip = gz;
      variants += (br ? 1 : 0) + (gz ? 1 : 0);
    } else {
      await Promise.all(Object.values(VARIANT_SUFFIX).map((suffix) => rm(full + suffix, { force: true })));
    }
    files[`/${file}`] = entry;
  });
  // Sorted, so that two builds of the same content write the same manifest.
  return { files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1))), count: originals.length, variants };
}

/**
 * Precompress dist/client (`clientDir`) and each scheduled edition's folder below `editionsDir`
 * (dist/scheduled/<instant>/, src/features/news/schedule.ts), and write the manifest to
 * `manifestPath`. Files named `<x>.br` / `<x>.gz` beside an `<x>` are taken for an earlier run's
 * copies and made again, never served as files of their own.
 */
export async function precompress(clientDir: string, manifestPath: string, options: PrecompressOptions = {}, editionsDir?: string): Promise<PrecompressResult> {
  const quality = options.brotliQuality ?? DEFAULT_BROTLI_QUALITY;
  const base = await describeTree(clientDir, quality);
  let files = base.count;
  let variants = base.variants;
  const editions: NonNullable<StaticManifest['editions']> = [];
  const instants = editionsDir && existsSync(editionsDir) ? (await readdir(editionsDir)).filter((name) => /^\d+$/.test(name)).map(Number).sort((a, b) => a - b) : [];
  for (const at of instants) {
    const edition = await describeTree(join(editionsDir!, String(at)), quality);
    editions.push({ at, files: edition.files });
    files += edition.count;
    variants += edition.variants;
  }
  const manifest: StaticManifest = { version: STATIC_MANIFEST_VERSION, files: base.files, ...(editions.length > 0 ? { editions } : {}) };
  // Written beside its final name and renamed over it: a reader sees the old manifest or the new one, whole.
  const temporary = join(dirname(manifestPath), `.static-manifest.${process.pid}.tmp`);
  await writeFile(temporary, formatStaticManifest(manifest));
  await rename(temporary, manifestPath);
  return { manifest, files, variants };
}

/** The Astro integration: precompress dist/client and write dist/server/static-manifest.ndjson after every build. */
export function staticManifestIntegration(options: PrecompressOptions = {}): AstroIntegration {
  return afterBuild('static-manifest', async ({ outDir, client }, logger) => {
    const started = performance.now();
    const manifestPath = fileURLToPath(new URL(STATIC_MANIFEST_PATH, outDir));
    const result = await precompress(fileURLToPath(client), manifestPath, options, fileURLToPath(new URL(`${EDITIONS_DIR}/`, outDir)));
    logger.info(`${result.files} files, ${result.variants} precompressed copies, manifest ${relative(process.cwd(), manifestPath)} in ${Math.round(performance.now() - started)} ms`);
  });
}
