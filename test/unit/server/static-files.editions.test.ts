/**
 * Scheduled editions in the prebuilt files (src/server/static-files.ts): the build step describes
 * dist/scheduled/<instant>/ in the manifest, and the server answers each edition's paths from its
 * instant on by the injected clock: a file that does not exist yet is not found, one that will
 * change is sent so that no cache keeps it past the switch, and afterwards the edition's own
 * bytes are served from its folder.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { precompress } from '../../../src/server/precompress.ts';
import { PENDING_CACHE_CONTROL, StaticFiles } from '../../../src/server/static-files.ts';
import { readStaticManifest, STATIC_MANIFEST_PATH } from '../../../src/server/static-manifest.ts';

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

const AT = Date.parse('2099-01-01T00:00:00Z');

function write(root: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(root, name, '..'), { recursive: true });
    writeFileSync(join(root, name), text);
  }
}

async function scheduledDist(): Promise<string> {
  const dist = mkdtempSync(join(tmpdir(), 'static-editions-'));
  scratch.push(dist);
  write(join(dist, 'client'), { 'news/index.html': '<p>old list</p>', 'rss.xml': '<rss>old</rss>', 'contact/index.html': '<p>contact</p>' });
  write(join(dist, 'scheduled', String(AT)), { 'news/index.html': '<p>new list</p>', 'news/later/index.html': '<p>later</p>', 'rss.xml': '<rss>new</rss>' });
  mkdirSync(join(dist, 'server'));
  await precompress(join(dist, 'client'), join(dist, STATIC_MANIFEST_PATH), {}, join(dist, 'scheduled'));
  return dist;
}

const quiet = { warn: () => {} };

async function bodyOf(statics: StaticFiles, path: string): Promise<string | undefined> {
  const file = statics.get(path);
  if (!file) return undefined;
  return ((await statics.read(file.identity)) as Buffer).toString('utf8');
}

describe('scheduled editions', () => {
  it('are described in the manifest by instant, with their files below their own folder', async () => {
    const dist = await scheduledDist();
    const manifest = await readStaticManifest(join(dist, STATIC_MANIFEST_PATH));
    expect(manifest.editions?.map((edition) => [edition.at, Object.keys(edition.files)])).toEqual([[AT, ['/news/index.html', '/news/later/index.html', '/rss.xml']]]);
    expect(Object.keys(manifest.files)).not.toContain('/news/later/index.html');
  });

  it('before the instant: the new page is not found and what will change cannot be cached past it', async () => {
    let now = AT - 1;
    const statics = await StaticFiles.load(await scheduledDist(), { maxBytes: 1 << 20, log: quiet, now: () => now });
    expect(statics.get('/news/later/')).toBeUndefined();
    expect(await bodyOf(statics, '/news/')).toBe('<p>old list</p>');
    expect(statics.get('/news/')!.cacheControl).toBe(PENDING_CACHE_CONTROL);
    expect(statics.get('/rss.xml')!.cacheControl).toBe(PENDING_CACHE_CONTROL);
    // A path no edition touches keeps its own.
    expect(statics.get('/contact/')!.cacheControl).toBe('public, max-age=0, must-revalidate');
    now = AT;
    expect(await bodyOf(statics, '/news/later/')).toBe('<p>later</p>');
  });

  it('from the instant on: the edition answers, with its own validators and caching', async () => {
    const statics = await StaticFiles.load(await scheduledDist(), { maxBytes: 1 << 20, log: quiet, now: () => AT + 60_000 });
    expect(await bodyOf(statics, '/news/')).toBe('<p>new list</p>');
    expect(await bodyOf(statics, '/news/later')).toBe('<p>later</p>');
    expect(await bodyOf(statics, '/rss.xml')).toBe('<rss>new</rss>');
    expect(statics.get('/rss.xml')!.cacheControl).toBe('public, max-age=3600');
    expect(await bodyOf(statics, '/contact/')).toBe('<p>contact</p>');
  });
});
