/**
 * Site search at archive size (src/app/search-index.ts): for each size, a cold `astro build` of a
 * copy of the repository with that many generated articles (bench/scenarios/astro-build.ts), the
 * size of the Pagefind index it wrote (dist/client/pagefind, identity bytes, without the
 * precompressed copies), and what one search downloads: the real server of that build, Debian's
 * Chromium opening /search/?q=<word> on a fresh profile, the encoded bytes of every /pagefind/
 * response until the result count is shown. Two queries: a word every generated article has
 * (QUERY_COMMON, the index's largest word) and one only one article has (QUERY_RARE).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { buildSiteCopy } from './astro-build.ts';
import { startServer } from '../lib/proc.ts';

/** In every generated article ("Auction volumes, seller transparency and the data API..."). */
export const QUERY_COMMON = 'transparency';
/** Only in generated article 7 ("Benchmark article number 7"); numbers are indexed as words. */
export const QUERY_RARE = 'number 7';

export interface QueryBytes {
  query: string;
  /** Encoded bytes of /pagefind/ responses, all of them (script, WebAssembly, entry, metadata, chunks, fragments). */
  bytes: number;
  /** Of which the index's own files (entry, metadata, index chunks, fragments). */
  indexBytes: number;
  requests: number;
  results: string;
}

export interface SearchSizeOutcome {
  articles: number;
  buildSeconds: number;
  /** Files and bytes of dist/client/pagefind (identity), and the bytes of the index's own files among them. */
  indexFiles: number;
  bundleBytes: number;
  indexBytes: number;
  queries: QueryBytes[];
  error?: string;
}

export interface SearchOutcome {
  sizes: SearchSizeOutcome[];
  seconds: number;
}

/** The index's own files (entry, metadata, word chunks, page fragments), as against its code (script, worker, WebAssembly). */
const INDEX_FILE = /(^|\/)(pagefind-entry\.json|[^/]*\.pf_(meta|index|fragment|filter))$/;

function treeSize(dir: string): { files: number; bytes: number; indexBytes: number } {
  let files = 0;
  let bytes = 0;
  let indexBytes = 0;
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    const stat = statSync(full);
    if (stat.isDirectory()) {
      const sub = treeSize(full);
      files += sub.files;
      bytes += sub.bytes;
      indexBytes += sub.indexBytes;
    } else if (!/\.(br|gz)$/.test(name)) {
      files++;
      bytes += stat.size;
      if (INDEX_FILE.test(name)) indexBytes += stat.size;
    }
  }
  return { files, bytes, indexBytes };
}

async function queryBytes(origin: string, query: string): Promise<QueryBytes> {
  const browser = await chromium.launch({ executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  try {
    const page = await browser.newPage();
    const fetched: Array<Promise<{ url: string; bytes: number }>> = [];
    page.on('requestfinished', (request) => {
      if (new URL(request.url()).pathname.startsWith('/pagefind/')) fetched.push(request.sizes().then((sizes) => ({ url: request.url(), bytes: sizes.responseBodySize })));
    });
    await page.goto(`${origin}/search/?q=${encodeURIComponent(query)}`);
    await page.waitForFunction(() => /result/.test(document.querySelector('[data-search-status]')?.textContent ?? ''), undefined, { timeout: 60_000 });
    const results = (await page.locator('[data-search-status]').textContent()) ?? '';
    const all = await Promise.all(fetched);
    return {
      query,
      bytes: all.reduce((sum, f) => sum + f.bytes, 0),
      indexBytes: all.filter((f) => INDEX_FILE.test(new URL(f.url).pathname)).reduce((sum, f) => sum + f.bytes, 0),
      requests: all.length,
      results,
    };
  } finally {
    await browser.close();
  }
}

export async function runSearch(options: { repo: string; workDir: string; sizes: readonly number[]; say: (line: string) => void }): Promise<SearchOutcome> {
  const started = performance.now();
  const sizes: SearchSizeOutcome[] = [];
  for (const articles of options.sizes) {
    const copy = join(options.workDir, 'search-copy');
    const built = await buildSiteCopy(options.repo, copy, articles);
    if (built.error) {
      sizes.push({ articles, buildSeconds: built.seconds, indexFiles: 0, bundleBytes: 0, indexBytes: 0, queries: [], error: built.error });
      continue;
    }
    const index = treeSize(join(built.dist, 'client', 'pagefind'));
    const server = await startServer({
      name: `search-${articles}`,
      args: ['src/app/main.ts'],
      cwd: options.repo,
      env: { PATH: process.env['PATH'] ?? '', PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'test', JOBS_ENABLED: 'false', DIST_DIR: built.dist, DATABASE_URL: join(options.workDir, `search-${articles}.db`) },
      logFile: join(options.workDir, `search-${articles}.log`),
    });
    try {
      const queries = [await queryBytes(server.url, QUERY_COMMON), await queryBytes(server.url, QUERY_RARE)];
      sizes.push({ articles, buildSeconds: built.seconds, indexFiles: index.files, bundleBytes: index.bytes, indexBytes: index.indexBytes, queries });
      options.say(`  ${articles} articles: build ${built.seconds.toFixed(1)} s, ${index.files} files, ${(index.bytes / 1024).toFixed(0)} KiB, index files ${(index.indexBytes / 1024).toFixed(0)} KiB; ${queries.map((q) => `"${q.query}" ${(q.bytes / 1024).toFixed(0)} KiB (index files ${(q.indexBytes / 1024).toFixed(0)} KiB)`).join(', ')}`);
    } finally {
      await server.stop();
    }
  }
  return { sizes, seconds: (performance.now() - started) / 1000 };
}

const kib = (bytes: number) => `${(bytes / 1024).toLocaleString('en', { maximumFractionDigits: 0 })} KiB`;

/** The search section of RESULTS.md. */
export function searchSection(s: SearchOutcome): string[] {
  const rows = s.sizes.map((size) => {
    if (size.error) return `| ${size.articles.toLocaleString('en')} | ${size.buildSeconds.toFixed(1)} s | build failed | | | | |`;
    const [common, rare] = size.queries;
    const cell = (q: QueryBytes | undefined) => (q ? `${kib(q.bytes)} (index ${kib(q.indexBytes)}, ${((q.indexBytes / size.indexBytes) * 100).toFixed(1)} % of it), ${q.requests} files` : '');
    return `| ${size.articles.toLocaleString('en')} | ${size.buildSeconds.toFixed(1)} s | ${size.indexFiles.toLocaleString('en')} | ${kib(size.bundleBytes)} | ${kib(size.indexBytes)} | ${cell(common)} | ${cell(rare)} |`;
  });
  return [
    '### Site search',
    '',
    `Cold \`astro build\` with N generated articles (the sample's own besides); what it wrote to dist/client/pagefind (identity bytes): all files, and the index's own (entry, metadata, word chunks, page fragments) without Pagefind's script and WebAssembly; and the encoded bytes Chromium downloaded from /pagefind/ for one search on a fresh profile: all, and in brackets the index's own files with their share of the index. "${QUERY_COMMON}": a word of every article; "${QUERY_RARE}": words of one article. ${Math.round(s.seconds)} s in all.`,
    '',
    `| articles | build | files | all bytes | index bytes | "${QUERY_COMMON}" | "${QUERY_RARE}" |`,
    '|---:|---:|---:|---:|---:|---|---|',
    ...rows,
    '',
  ];
}
