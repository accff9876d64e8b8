/**
 * The news list once the archive outgrows a page: a build of a throw-away copy of the repository
 * with GENERATED more articles (its own output and cache folders), served by the real server and
 * read in Chromium. The sample content fits on one page, so the other tests never see the page
 * navigation; this file does:
 *
 * - every published article on exactly one list page, newest first, NEWS_PAGE_SIZE a page, page 1
 *   at /news/ and no /news/page/1/, 404 past the last page;
 * - <link rel="prev"/"next"> in the head and the same neighbours in the page navigation, the
 *   current page marked aria-current="page";
 * - the feed's FEED_ITEMS newest items, the home page's HOME_NEWS_COUNT, /api/news and the
 *   sitemap still holding every article;
 * - in Chromium, with and without JavaScript: the navigation as assistive technology sees it
 *   (a named landmark, link names, the current page), keyboard focus, target sizes, a phone's
 *   width, no CSP violation; Lighthouse on a middle page;
 * - an article named page.md fails the build with a message naming the file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatedArticleId, makeSiteCopy } from '../../../bench/scenarios/astro-build.ts';
import { FEED_ITEMS, HOME_NEWS_COUNT, NEWS_PAGE_SIZE } from '../../../src/features/news/pagination.ts';
import { useBrowserSite, withPage, screenshot } from '../../helpers/browser.ts';
import { runOwned, spawnOwned } from '../../helpers/processes.ts';
import { CATEGORIES, belowThreshold, formatTable, runLighthouse } from './lighthouse-run.ts';
import { publishedArticles } from './news-content.ts';

/**
 * Generated articles beside the sample ones: with them the archive fills two pages and part of a
 * third (so the middle page has both neighbours) and exceeds the feed by a few, and the build
 * stays small (each article's og.png costs 30-70 ms).
 */
const GENERATED = 2 * NEWS_PAGE_SIZE + 5;
const PUBLISHED = publishedArticles().length + GENERATED;
const PAGES = Math.ceil(PUBLISHED / NEWS_PAGE_SIZE);

const work = mkdtempSync(join(tmpdir(), 'news-pagination-'));
const copy = join(work, 'site');
const client = join(copy, 'dist', 'client');

beforeAll(async () => {
  makeSiteCopy(process.cwd(), copy, GENERATED);
  await runOwned(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], {
    cwd: copy,
    // Not vitest's environment: its workers carry Vite's DEV=1, MODE=test and NODE_ENV=test,
    // which Astro would read into import.meta.env and build the drafts too.
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: process.env['HOME'] ?? '/tmp',
      NODE_ENV: 'production',
      ASTRO_OUT_DIR: join(copy, 'dist'),
      ASTRO_CACHE_DIR: join(work, 'astro-cache'),
      ASTRO_TELEMETRY_DISABLED: '1',
    },
  });
}, 360_000);

// Registered after the build, so it starts once the build is there (beforeAll hooks run in order).
const { site, browser } = useBrowserSite({ DIST_DIR: join(copy, 'dist') });

afterAll(() => rmSync(work, { recursive: true, force: true }));

const listPath = (n: number) => (n === 1 ? '/news/' : `/news/page/${n}/`);
const html = (path: string) => readFileSync(join(client, path, 'index.html'), 'utf8');
/** The article ids a list page links, in order. */
const listed = (page: string) => [...page.matchAll(/<h2 class="news-card__heading"[^>]*><a href="\/news\/([a-z0-9-]+)\/"/g)].map((m) => m[1]!);
/** href of <link rel="..."> in the head. */
const headLink = (page: string, rel: string) => new RegExp(`<link rel="${rel}" href="([^"]+)">`).exec(page.slice(0, page.indexOf('</head>')))?.[1];
/** The page navigation's markup. */
const pager = (page: string) => /<nav class="pager" aria-label="News pages"[^>]*>[\s\S]*?<\/nav>/.exec(page)?.[0];
/** href of the navigation's <a rel="..."> link. */
const navLink = (page: string, rel: string) => new RegExp(`<a [^>]*href="([^"]+)" rel="${rel}"`).exec(pager(page) ?? '')?.[1];

/** Every published article, newest first: /api/news of the build, the contract's own list. */
const api = () => (JSON.parse(readFileSync(join(client, 'api', 'news'), 'utf8')) as Array<{ id: string; createdAt: string }>).map((a) => a.id);

describe('the build of an archive larger than one page', () => {
  it('has every published article in /api/news, newest first, generated and sample ones alike', () => {
    const ids = api();
    expect(ids).toHaveLength(PUBLISHED);
    expect(PAGES).toBe(3);
    expect(ids.slice(0, publishedArticles().length)).toEqual(publishedArticles().map((a) => a.id));
    expect(ids.at(-1)).toBe(generatedArticleId(1));
  });

  it(`writes ${PAGES} list pages of ${NEWS_PAGE_SIZE} articles (the last holds the rest), page 1 at /news/ alone`, () => {
    const sizes = Array.from({ length: PAGES }, (_, i) => listed(html(listPath(i + 1))).length);
    expect(sizes).toEqual([NEWS_PAGE_SIZE, NEWS_PAGE_SIZE, PUBLISHED - 2 * NEWS_PAGE_SIZE]);
    expect(existsSync(join(client, 'news', 'page', '1'))).toBe(false);
    expect(existsSync(join(client, 'news', 'page', String(PAGES + 1)))).toBe(false);
    expect(existsSync(join(client, 'news', 'page', 'index.html'))).toBe(false);
  });

  it('reaches every article exactly once, newest first, by following rel="next" from /news/', () => {
    const seen: string[] = [];
    const visited: string[] = [];
    for (let path: string | undefined = '/news/'; path !== undefined; path = headLink(html(path), 'next')) {
      expect(visited, 'a page visited twice').not.toContain(path);
      visited.push(path);
      seen.push(...listed(html(path)));
    }
    expect(visited).toEqual(Array.from({ length: PAGES }, (_, i) => listPath(i + 1)));
    expect(seen).toEqual(api());
  });

  it.each(Array.from({ length: PAGES }, (_, i) => i + 1))('page %i names its neighbours in the head and in the navigation', (n) => {
    const page = html(listPath(n));
    const prev = n > 1 ? listPath(n - 1) : undefined;
    const next = n < PAGES ? listPath(n + 1) : undefined;
    expect([headLink(page, 'prev'), headLink(page, 'next')]).toEqual([prev, next]);
    expect([navLink(page, 'prev'), navLink(page, 'next')]).toEqual([prev, next]);
    expect(headLink(page, 'canonical')).toMatch(new RegExp(`^https?://[^/]+${listPath(n)}$`));
  });

  it.each(Array.from({ length: PAGES }, (_, i) => i + 1))('page %i marks itself, and only itself, as the current page', (n) => {
    const nav = pager(html(listPath(n)));
    expect(nav).toBeDefined();
    expect([...nav!.matchAll(/<a [^>]*aria-current="page"[^>]*>/g)].map((m) => /href="([^"]+)"/.exec(m[0])?.[1])).toEqual([listPath(n)]);
    expect([...nav!.matchAll(/href="([^"]+)"/g)].map((m) => m[1]).filter((href) => /\/news\/(page\/\d+\/)?$/.test(href!))).toEqual(
      expect.arrayContaining(Array.from({ length: PAGES }, (_, i) => listPath(i + 1))),
    );
  });

  it(`puts the ${FEED_ITEMS} newest articles, and no other, in the feed`, () => {
    const xml = readFileSync(join(client, 'rss.xml'), 'utf8');
    const links = [...xml.matchAll(/<item>[\s\S]*?<link>([^<]+)<\/link>/g)].map((m) => new URL(m[1]!).pathname);
    expect(PUBLISHED).toBeGreaterThan(FEED_ITEMS);
    expect(links).toEqual(api().slice(0, FEED_ITEMS).map((id) => `/news/${id}/`));
  });

  it(`shows the ${HOME_NEWS_COUNT} newest articles on the home page, with a link to the whole list`, () => {
    const home = readFileSync(join(client, 'index.html'), 'utf8');
    const latest = /<section aria-labelledby="news-title"[\s\S]*?<\/section>/.exec(home)?.[0] ?? '';
    expect([...latest.matchAll(/<h3 class="news-card__heading"[^>]*><a href="\/news\/([a-z0-9-]+)\/"/g)].map((m) => m[1])).toEqual(api().slice(0, HOME_NEWS_COUNT));
    expect(latest).toMatch(/<a href="\/news\/"[^>]*>All news<\/a>/);
  });

  it('keeps a page for every article and lists each, and every list page, in the sitemap with its lastmod', () => {
    const xml = readFileSync(join(client, 'sitemap-0.xml'), 'utf8');
    const lastmods = new Map([...xml.matchAll(/<url><loc>([^<]+)<\/loc>(?:<lastmod>([^<]+)<\/lastmod>)?/g)].map((m) => [new URL(m[1]!).pathname, m[2]]));
    const created = new Map((JSON.parse(readFileSync(join(client, 'api', 'news'), 'utf8')) as Array<{ id: string; createdAt: string }>).map((a) => [a.id, a.createdAt]));
    for (const [id, createdAt] of created) {
      expect(existsSync(join(client, 'news', id, 'index.html')), id).toBe(true);
      expect(Date.parse(lastmods.get(`/news/${id}/`) ?? ''), id).toBe(Date.parse(createdAt));
    }
    const newest = Math.max(...[...created.values()].map((t) => Date.parse(t)));
    for (let n = 1; n <= PAGES; n++) expect(Date.parse(lastmods.get(listPath(n)) ?? ''), listPath(n)).toBe(newest);
    expect([...lastmods.keys()].filter((path) => path.startsWith('/news/page/'))).toHaveLength(PAGES - 1);
  });
});

describe('the list pages served', () => {
  it('answers 404 past the last page, for /news/page/1/ (page 1 is /news/) and for a page that is no number', async () => {
    for (const path of [`/news/page/${PAGES + 1}/`, '/news/page/1/', '/news/page/0/', '/news/page/', '/news/page/two/', `/news/${PAGES}/`]) {
      const response = await fetch(`${site.url}${path}`);
      await response.arrayBuffer();
      expect(response.status, path).toBe(404);
    }
  });

  it('answers 200 for each page, with or without the trailing slash', async () => {
    for (let n = 1; n <= PAGES; n++) {
      for (const path of [listPath(n), listPath(n).slice(0, -1)]) {
        const response = await fetch(`${site.url}${path}`);
        expect(response.status, path).toBe(200);
        expect(listed(await response.text()), path).toEqual(api().slice((n - 1) * NEWS_PAGE_SIZE, n * NEWS_PAGE_SIZE));
      }
    }
  });
});

describe('the page navigation in Chromium', () => {
  it('is a landmark named "News pages" whose links are named for their page, the current one marked', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/news/page/2/`, { waitUntil: 'networkidle' });
      const nav = page.getByRole('navigation', { name: 'News pages' });
      expect(await nav.count()).toBe(1);
      // Names as a screen reader announces them: "Page 2", not a bare "2"; the arrows are hidden.
      expect(await nav.getByRole('link').evaluateAll((links) => links.map((a) => a.getAttribute('aria-current')))).toEqual([null, null, 'page', null, null]);
      for (const name of ['Newer articles', 'Page 1', 'Page 2', 'Page 3', 'Older articles']) {
        expect(await nav.getByRole('link', { name, exact: true }).count(), name).toBe(1);
      }
      expect(await nav.getByRole('link', { name: 'Page 2', exact: true }).getAttribute('href')).toBe('/news/page/2/');
      expect(await page.title()).toBe(`News, page 2 of ${PAGES} · Meridian Ad Exchange`);
      await screenshot(page, 'news-page-2');
    });
  });

  it('is reached with the keyboard, each link showing a focus outline and at least 44 px square', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/news/page/2/`, { waitUntil: 'networkidle' });
      const nav = page.getByRole('navigation', { name: 'News pages' });
      const count = await nav.getByRole('link').count();
      // Focus the last article link, then Tab through the navigation in document order.
      await page.getByRole('main').getByRole('article').last().getByRole('link').focus();
      for (let i = 0; i < count; i++) {
        await page.keyboard.press('Tab');
        const focused = await page.evaluate(() => {
          const el = document.activeElement as HTMLElement;
          const style = getComputedStyle(el);
          const box = el.getBoundingClientRect();
          return { inNav: !!el.closest('nav[aria-label="News pages"]'), outline: style.outlineStyle, width: box.width, height: box.height };
        });
        expect(focused.inNav, `Tab ${i + 1}`).toBe(true);
        expect(focused.outline, `Tab ${i + 1}`).not.toBe('none');
        expect(focused.width, `Tab ${i + 1}`).toBeGreaterThanOrEqual(44);
        expect(focused.height, `Tab ${i + 1}`).toBeGreaterThanOrEqual(44);
      }
    });
  });

  it('fits a phone\'s width without sideways scrolling', async () => {
    await withPage(browser, { viewport: { width: 390, height: 844 } }, async (page) => {
      await page.goto(`${site.url}/news/page/2/`, { waitUntil: 'networkidle' });
      const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
      const boxes = await page.getByRole('navigation', { name: 'News pages' }).getByRole('link').evaluateAll((links) => links.map((a) => a.getBoundingClientRect().right));
      for (const right of boxes) expect(right).toBeLessThanOrEqual(innerWidth);
      await screenshot(page, 'news-page-2-390');
    });
  });

  it('pages through the whole list without JavaScript, and back', async () => {
    await withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await page.goto(`${site.url}/news/`);
      expect(await page.getByRole('navigation', { name: 'News pages' }).getByRole('link', { name: 'Newer articles' }).count()).toBe(0);
      for (let n = 2; n <= PAGES; n++) {
        await page.getByRole('link', { name: 'Older articles' }).click();
        await page.waitForURL(`${site.url}${listPath(n)}`);
        expect(await page.getByRole('main').getByRole('article').count()).toBe(listed(html(listPath(n))).length);
      }
      expect(await page.getByRole('link', { name: 'Older articles' }).count()).toBe(0);
      await page.getByRole('link', { name: 'Page 1', exact: true }).click();
      await page.waitForURL(`${site.url}/news/`);
      await page.getByRole('link', { name: 'Page 2', exact: true }).click();
      await page.getByRole('link', { name: 'Newer articles' }).click();
      await page.waitForURL(`${site.url}/news/`);
    });
  });
});

describe('Lighthouse', () => {
  it('scores a middle page of the list like the other pages, and 100 for accessibility', { timeout: 360_000 }, async () => {
    const results = await runLighthouse({ baseUrl: site.url, pages: [{ name: 'news-page-2', path: '/news/page/2/' }], reportsDir: 'test-results/lighthouse', log: () => {} });
    console.log(formatTable(results));
    expect(results[0]!.runtimeError).toBeUndefined();
    for (const category of CATEGORIES) expect(results[0]!.scores[category], category).not.toBeNull();
    expect(belowThreshold(results)).toEqual([]);
    // Accessibility is axe's rules on the page alone: no network timing in it, so no reason to be less than 100.
    expect(results[0]!.scores.accessibility).toBe(100);
  });
});

describe('an article named page.md', () => {
  it('fails the build with a message naming the file and why', { timeout: 120_000 }, async () => {
    writeFileSync(join(copy, 'content', 'news', 'page.md'), '---\nheading: Page\ncreatedAt: 2026-01-05T09:30:00+01:00\n---\n\nBody.\n');
    const sync = spawnOwned(process.execPath, ['node_modules/astro/bin/astro.mjs', 'sync'], {
      cwd: copy,
      env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ASTRO_CACHE_DIR: join(work, 'astro-cache-sync'), ASTRO_TELEMETRY_DISABLED: '1' },
    });
    expect(await sync.exited).not.toBe(0);
    expect(sync.output()).toContain('content/news/page.md: "page" cannot be an article id: /news/page/ holds the pages of the news list (/news/page/2/)');
  });
});
