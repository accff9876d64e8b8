/**
 * Content that cannot be published fails `astro build` (and `astro sync`) whatever Astro's cache
 * holds, with every bad file named at once; `npm run dev` shows the problems in the browser.
 * Each case runs Astro in a copy of the repository with a cache folder of its own, warmed first
 * by a run over good content, as a developer's node_modules/.astro is:
 * - sellers.json moved away: before, the build logged "File not found", exited 0 and shipped the
 *   cached document;
 * - three broken articles: before, the build named only the first;
 * - an image deleted from public/ under an article the cache holds unchanged;
 * - `link: /nope-page`, which no page of the site answers: before, shipped as a dead link;
 * - the dev server's news list, which left a broken article out without a word.
 */
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeSiteCopy } from '../../bench/scenarios/astro-build.ts';
import { freePort, spawnOwned, type OwnedProcess } from '../helpers/processes.ts';

const work = mkdtempSync(join(tmpdir(), 'content-build-'));
const copy = join(work, 'site');
const cache = join(work, 'astro-cache');

/** `astro <command>` in the copy with the shared cache; its exit and everything it wrote. */
async function astro(command: 'sync' | 'build'): Promise<{ code: number | string; output: string }> {
  const run = spawnOwned(process.execPath, ['node_modules/astro/bin/astro.mjs', command], {
    cwd: copy,
    // Not vitest's environment (its DEV=1 and MODE=test would reach import.meta.env).
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', NODE_ENV: 'production', ASTRO_OUT_DIR: join(copy, 'dist'), ASTRO_CACHE_DIR: cache, ASTRO_TELEMETRY_DISABLED: '1' },
  });
  let output = '';
  run.child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  run.child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await run.exited;
  return { code, output };
}

const article = (fields: string) => `---\n${fields}\n---\n\nBody.\n`;
const news = (id: string) => join(copy, 'content', 'news', `${id}.md`);

beforeAll(async () => {
  makeSiteCopy(process.cwd(), copy, 0);
  writeFileSync(news('with-image'), article('heading: With an image\nimageUrl: /images/news/cached-only.svg\nimageAlt: ""\nimageWidth: 10\nimageHeight: 10\ncreatedAt: 2026-01-05T09:30:00+01:00'));
  writeFileSync(join(copy, 'public', 'images', 'news', 'cached-only.svg'), '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
  // Warm the cache with good content: every later run must fail despite what it holds.
  const warm = await astro('sync');
  expect(warm.code, warm.output).toBe(0);
}, 600_000);

afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('astro sync over a warm cache', () => {
  it('fails, naming the file, when content/sellers.json is missing', async () => {
    renameSync(join(copy, 'content', 'sellers.json'), join(work, 'sellers.json'));
    try {
      const run = await astro('sync');
      expect(run.code).not.toBe(0);
      expect(run.output).toContain('content/sellers.json not found: the build publishes it as /sellers.json and has no other copy');
    } finally {
      renameSync(join(work, 'sellers.json'), join(copy, 'content', 'sellers.json'));
    }
  });

  it('names every broken article at once, and an image deleted under a cached one', async () => {
    writeFileSync(news('bad-date'), article('heading: A\ncreatedAt: 2026-01-05T09:30:00'));
    writeFileSync(news('no-heading'), article('createdAt: 2026-01-05T09:30:00+01:00'));
    writeFileSync(news('Bad_Name'), article('heading: C\ncreatedAt: 2026-01-05T09:30:00+01:00'));
    rmSync(join(copy, 'public', 'images', 'news', 'cached-only.svg'));
    try {
      const run = await astro('sync');
      expect(run.code).not.toBe(0);
      expect(run.output).toContain('4 news articles cannot be published:');
      for (const file of ['bad-date', 'no-heading', 'Bad_Name']) expect(run.output).toContain(`content/news/${file}.md: `);
      expect(run.output).toContain('content/news/with-image.md: imageUrl "/images/news/cached-only.svg" does not exist: no file public/images/news/cached-only.svg');
    } finally {
      for (const file of ['bad-date', 'no-heading', 'Bad_Name', 'with-image']) rmSync(news(file), { force: true });
    }
  });
});

describe('astro build', () => {
  it('fails on a related link that no page of the site answers, naming the file', async () => {
    writeFileSync(news('dead-link'), article('heading: Dead link\nlink: /nope-page\ncreatedAt: 2026-01-05T09:30:00+01:00'));
    writeFileSync(news('good-links'), article('heading: Good links\nlink: /stats\ncreatedAt: 2026-01-06T09:30:00+01:00'));
    try {
      const run = await astro('build');
      expect(run.code).not.toBe(0);
      expect(run.output).toContain('1 news article cannot be published:');
      expect(run.output).toContain('content/news/dead-link.md: link "/nope-page" leads to no page of this site');
      expect(run.output).not.toContain('content/news/good-links.md');
    } finally {
      rmSync(news('dead-link'), { force: true });
      rmSync(news('good-links'), { force: true });
    }
  });
});

describe('astro dev with a broken article', () => {
  let dev: OwnedProcess | undefined;
  afterAll(async () => {
    await dev?.stop('SIGTERM', 10_000);
  });

  it('shows the file and its problem in an error box on the news list, and drops the box once it is fixed', async () => {
    writeFileSync(news('broken-draft'), article('heading: Broken\ncreatedAt: 2026-01-05T09:30:00'));
    const port = await freePort();
    dev = spawnOwned(process.execPath, ['node_modules/astro/bin/astro.mjs', 'dev', '--ignore-lock'], {
      cwd: copy,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ASTRO_CACHE_DIR: cache, ASTRO_TELEMETRY_DISABLED: '1', PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: join(work, 'dev.db'), JOBS_ENABLED: 'false' },
    });
    await dev.waitForLine(/watching for file changes/, 180_000);
    const list = async () => (await fetch(`http://127.0.0.1:${port}/news/`)).text();

    const html = await list();
    expect(html).toContain('data-news-problems');
    expect(html).toMatch(/<code[^>]*>content\/news\/broken-draft\.md<\/code>: createdAt: createdAt &quot;2026-01-05T09:30:00&quot; has no timezone/);

    writeFileSync(news('broken-draft'), article('heading: Broken no more\ncreatedAt: 2026-01-05T09:30:00+01:00'));
    // The box goes and the fixed article appears: both after the file watcher has reloaded, which
    // a loaded machine may do in two steps, so wait for both in one page.
    const fixed = (html: string) => !html.includes('data-news-problems') && html.includes('Broken no more');
    await expect.poll(async () => fixed(await list()), { timeout: 90_000, interval: 500 }).toBe(true);
  }, 300_000);
});
