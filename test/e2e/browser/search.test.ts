/**
 * Site search in Chromium, against the real server and a build of a copy of the repository with
 * three articles of this file's own: one published, one draft, one scheduled (createdAt in 2099),
 * each with a word no other page has. The search runs in the browser from the static index
 * (src/app/search-index.ts, src/pages/search.astro):
 * - a word of the published article's body finds it, with its heading, date and an excerpt whose
 *   matched word is marked, and the live region gives the count;
 * - the draft's and the scheduled article's words find nothing;
 * - `?q=` is the query (a shareable link), and the header's search box sends it;
 * - without JavaScript the form still sends `?q=` and the page says search needs JavaScript;
 * - Lighthouse scores /search/ 100 for accessibility.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useBrowserSite, withPage } from '../../helpers/browser.ts';
import { buildSiteWith, type BuiltSite } from '../../helpers/site-build.ts';
import { belowThreshold, formatTable, runLighthouse } from './lighthouse-run.ts';

const PUBLISHED = { id: 'search-fixture-published', word: 'xylophonist', heading: 'Auction notes for the xylophone season' };
const DRAFT = { id: 'search-fixture-draft', word: 'quarantinable' };
const SCHEDULED = { id: 'search-fixture-scheduled', word: 'zeppelinish' };

let built: BuiltSite | undefined;
beforeAll(async () => {
  built = await buildSiteWith(
    {
      [PUBLISHED.id]: { heading: PUBLISHED.heading, createdAt: '2026-03-02T09:00:00Z', body: `Our most ${PUBLISHED.word} partner joined the exchange this week.` },
      [DRAFT.id]: { heading: 'A draft', createdAt: '2026-03-03T09:00:00Z', body: `Not ready: ${DRAFT.word}.`, draft: true },
      [SCHEDULED.id]: { heading: 'A scheduled announcement', createdAt: '2099-01-01T00:00:00Z', body: `Under embargo: ${SCHEDULED.word}.` },
    },
    'search',
  );
}, 240_000);
afterAll(() => built?.remove());

const { site, browser } = useBrowserSite({
  get DIST_DIR() {
    if (!built) throw new Error('the build is not there');
    return built.dist;
  },
});

describe('the search page with JavaScript', () => {
  it('finds a published article by a word of its body, with heading, date and the word marked', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/search/?q=${PUBLISHED.word}`);
      const status = page.getByRole('status');
      await expect.poll(() => status.textContent(), { timeout: 15_000 }).toBe(`1 result for “${PUBLISHED.word}”.`);
      const results = page.getByRole('list', { name: 'Search results' }).getByRole('listitem');
      expect(await results.count()).toBe(1);
      const link = results.first().getByRole('link', { name: PUBLISHED.heading });
      expect(await link.getAttribute('href')).toBe(`/news/${PUBLISHED.id}/`);
      expect(await results.first().locator('time').getAttribute('datetime')).toBe('2026-03-02T09:00:00Z');
      expect(await results.first().locator('mark').allTextContents()).toContain(PUBLISHED.word);
      expect(await page.getByRole('searchbox', { name: /Words to find/ }).inputValue()).toBe(PUBLISHED.word);
      expect(await page.getByText('Search runs in your browser').count()).toBe(0);
    });
  });

  it('finds neither a draft nor a scheduled article', async () => {
    await withPage(browser, async (page) => {
      for (const word of [DRAFT.word, SCHEDULED.word]) {
        await page.goto(`${site.url}/search/?q=${word}`);
        await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toBe(`No results for “${word}”.`);
        expect(await page.getByRole('list', { name: 'Search results' }).getByRole('listitem').count()).toBe(0);
      }
    });
  });

  it('searches as the query is typed and keeps it in the address, so the link can be shared', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/search/`);
      await page.getByRole('searchbox', { name: /Words to find/ }).fill(PUBLISHED.word);
      await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toBe(`1 result for “${PUBLISHED.word}”.`);
      expect(new URL(page.url()).searchParams.get('q')).toBe(PUBLISHED.word);
    });
  });

  it('is reached from the search box in the header of every page', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/news/`);
      const box = page.getByRole('search', { name: 'Site' }).getByRole('searchbox', { name: 'Search the site' });
      await box.fill(PUBLISHED.word);
      await box.press('Enter');
      await page.waitForURL(/\/search\/\?q=/);
      await expect.poll(() => page.getByRole('status').textContent(), { timeout: 15_000 }).toBe(`1 result for “${PUBLISHED.word}”.`);
    });
  });
});

describe('the search page without JavaScript', () => {
  it('says that search needs JavaScript, and the header form still sends ?q=', async () => {
    await withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await page.goto(`${site.url}/`);
      await page.getByRole('searchbox', { name: 'Search the site' }).fill(PUBLISHED.word);
      await page.getByRole('searchbox', { name: 'Search the site' }).press('Enter');
      await page.waitForURL(/\/search\/\?q=/);
      expect(new URL(page.url()).searchParams.get('q')).toBe(PUBLISHED.word);
      expect(await page.getByText('Search runs in your browser and needs JavaScript').isVisible()).toBe(true);
      expect(await page.getByRole('list', { name: 'Search results' }).getByRole('listitem').count()).toBe(0);
    });
  });
});

describe('Lighthouse', () => {
  it('scores /search/ 100 for accessibility', { timeout: 240_000 }, async () => {
    const results = await runLighthouse({ baseUrl: site.url, pages: [{ name: 'search', path: `/search/?q=${PUBLISHED.word}` }], reportsDir: 'test-results/lighthouse', log: () => {} });
    console.log(formatTable(results));
    expect(results[0]!.runtimeError).toBeUndefined();
    expect(belowThreshold(results)).toEqual([]);
    expect(results[0]!.scores.accessibility).toBe(100);
  });
});
