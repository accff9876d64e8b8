/**
 * Site search's static index (Pagefind, https://pagefind.app): written by the build into
 * dist/client/pagefind/, so a search costs the server nothing and works on any static host; the
 * browser downloads the entry file, the language's small metadata and only the index chunks and
 * result fragments a query needs. Pagefind indexes only pages that mark their content with
 * `data-pagefind-body`: the news articles and the API reference.
 *
 * Scheduled articles (src/features/news/schedule.ts) are added edition by edition to the same
 * index: each edition's files that the earlier ones lack (Pagefind names its chunks by their
 * content) and its own `pagefind-entry.json` go to dist/scheduled/<instant>/pagefind/, which the
 * edge serves from that instant on. Nothing of a scheduled article is in dist/client.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as pagefind from 'pagefind';
import type { Schedule } from '../features/news/schedule.ts';

/** Where the index goes below dist/client and each edition's folder; also its URL path. */
export const SEARCH_INDEX_DIR = 'pagefind';

export interface SearchIndexResult {
  /** Pages indexed at the build's instant. */
  pages: number;
  /** Files of the index at the build's instant. */
  files: number;
  /** Their bytes. */
  bytes: number;
}

function failIf(errors: readonly string[], what: string): void {
  if (errors.length > 0) throw new Error(`search index: ${what}: ${errors.join('; ')}`);
}

/**
 * Pagefind's ready-made interfaces (pagefind-ui, modular-ui, component-ui, highlight): the site
 * has its own small one on its JS API (src/features/search/), so they are not published.
 */
const UNUSED = /^pagefind-(ui|modular-ui|component-ui|highlight)\./;

async function writeAll(dir: string, files: ReadonlyArray<{ path: string; content: Uint8Array }>): Promise<void> {
  for (const file of files) {
    if (UNUSED.test(file.path)) continue;
    const target = join(dir, file.path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.content);
  }
}

/** Index dist/client (`client`) and each edition's new articles (below `scheduled`). */
export async function writeSearchIndex(client: string, scheduled: string, schedule: Schedule): Promise<SearchIndexResult> {
  // English only (the site's lang="en"): one index, one stemmer.
  const { index, errors } = await pagefind.createIndex({ forceLanguage: 'en' });
  try {
    failIf(errors, 'cannot start Pagefind');
    if (!index) throw new Error('search index: Pagefind returned no index');
    const added = await index.addDirectory({ path: client });
    failIf(added.errors, 'cannot index dist/client');
    const base = await index.getFiles();
    failIf(base.errors, 'cannot build the index');
    await writeAll(join(client, SEARCH_INDEX_DIR), base.files);
    // Each path's bytes as the earlier editions serve them.
    const known = new Map(base.files.map((file) => [file.path, Buffer.from(file.content)]));
    for (const edition of schedule.editions) {
      const dir = join(scheduled, String(edition.at));
      for (const id of edition.ids) {
        const content = await readFile(join(dir, 'news', id, 'index.html'), 'utf8');
        failIf((await index.addHTMLFile({ url: `/news/${id}/`, content })).errors, `cannot index the scheduled article ${id}`);
      }
      const next = await index.getFiles();
      failIf(next.errors, 'cannot build the index');
      const changed = next.files.filter((file) => !known.get(file.path)?.equals(file.content));
      await writeAll(join(dir, SEARCH_INDEX_DIR), changed);
      for (const file of changed) known.set(file.path, Buffer.from(file.content));
    }
    return { pages: added.page_count, files: base.files.length, bytes: base.files.reduce((sum, file) => sum + file.content.length, 0) };
  } finally {
    await pagefind.close();
  }
}
