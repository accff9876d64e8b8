/**
 * The content pages in Chromium against the real server: home, news, an article, the 404 page,
 * and the same pages with JavaScript off (they are plain documents and must not need it).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withPage, screenshot, useBrowserSite } from '../../helpers/browser.ts';
import { SITE_NAME } from '../../../src/components/site.ts';
import { NEWS_PAGE_SIZE } from '../../../src/features/news/pagination.ts';
import { draftArticles, publishedArticles } from './news-content.ts';

const { site, browser } = useBrowserSite();

const published = publishedArticles();
const newest = published[0]!;

describe('the home page', () => {
  it('shows the newest published article first under "Latest news", linking to its page', async () => {
    await withPage(browser, async (page) => {
      const response = await page.goto(`${site.url}/`);
      expect(response?.status()).toBe(200);
      await expect(page.title()).resolves.toBe('Meridian Ad Exchange');
      const latest = page.getByRole('region', { name: 'Latest news' });
      const first = latest.getByRole('article').first().getByRole('link', { name: newest.heading });
      expect(await first.isVisible()).toBe(true);
      expect(await first.getAttribute('href')).toBe(`/news/${newest.id}/`);
      for (const draft of draftArticles()) expect(await page.getByText(draft.heading).count(), draft.id).toBe(0);

      await first.click();
      await page.waitForURL(`${site.url}/news/${newest.id}/`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(newest.heading);
      await screenshot(page, 'home-to-article');
    });
  });

  it('renders without a console error or failed request', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/`, { waitUntil: 'networkidle' });
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Transparent advertising auctions');
      await screenshot(page, 'home');
    });
  });
});

describe('the news pages', () => {
  it('lists the newest published articles, a page of them, newest first, and no draft', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/news/`, { waitUntil: 'networkidle' });
      const headings = await page.getByRole('main').getByRole('article').getByRole('heading', { level: 2 }).allTextContents();
      expect(headings.map((h) => h.trim())).toEqual(published.slice(0, NEWS_PAGE_SIZE).map((a) => a.heading));
      // The sample articles fit on one page: no page navigation (news-pagination.test.ts has more).
      expect(published.length).toBeLessThanOrEqual(NEWS_PAGE_SIZE);
      expect(await page.getByRole('navigation', { name: 'News pages' }).count()).toBe(0);
      await screenshot(page, 'news');
    });
  });

  it('renders an article with its heading and body', async () => {
    await withPage(browser, async (page) => {
      const response = await page.goto(`${site.url}/news/${newest.id}/`, { waitUntil: 'networkidle' });
      expect(response?.status()).toBe(200);
      const article = page.getByRole('main').getByRole('article');
      expect(await article.getByRole('heading', { level: 1 }).textContent()).toBe(newest.heading);
      const text = (await article.innerText()).replace(/\s+/g, ' ');
      expect(newest.firstParagraph.length).toBeGreaterThan(20);
      expect(text).toContain(newest.firstParagraph);
      await screenshot(page, 'article');
    });
  });

  it('names a related page on this site by its title, never by its path', async () => {
    const withSitePath = published.filter((a) => a.link?.startsWith('/'));
    expect(withSitePath.length).toBeGreaterThan(0);
    await withPage(browser, async (page) => {
      for (const article of withSitePath) {
        await page.goto(`${site.url}/news/${article.id}/`);
        const related = page.locator('.article__link a');
        const text = (await related.textContent())?.trim();
        expect(text, article.id).not.toBe(article.link);
        expect(await related.getAttribute('href')).toBe(article.link);
        // The label is the target's own title when the target is a page (<title> less the site name).
        const target = await page.request.get(`${site.url}${article.link}`);
        if (!target.headers()['content-type']?.startsWith('text/html')) continue;
        const title = /<title>([^<]*)<\/title>/.exec(await target.text())?.[1];
        expect(title?.replace(` · ${SITE_NAME}`, ''), article.id).toBe(text);
      }
    });
  });

  it('has no page for a draft: its address is the 404 page', async () => {
    const drafts = draftArticles();
    expect(drafts.length).toBeGreaterThan(0);
    const url = `${site.url}/news/${drafts[0]!.id}/`;
    await withPage(browser, { expected: [{ url, status: 404 }] }, async (page) => {
      const response = await page.goto(url);
      expect(response?.status()).toBe(404);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
    });
  });
});

describe('the API docs page', () => {
  it('renders with a heading and no console error or failed request', async () => {
    await withPage(browser, async (page) => {
      const response = await page.goto(`${site.url}/docs/api/`, { waitUntil: 'networkidle' });
      expect(response?.status()).toBe(200);
      expect(((await page.getByRole('heading', { level: 1 }).textContent()) ?? '').trim()).not.toBe('');
      await screenshot(page, 'docs-api');
    });
  });
});

describe('the 404 page', () => {
  it('answers an unknown path with status 404 and a page that offers ways on', async () => {
    const url = `${site.url}/no-such-page/`;
    await withPage(browser, { expected: [{ url, status: 404 }] }, async (page) => {
      const response = await page.goto(url, { waitUntil: 'networkidle' });
      expect(response?.status()).toBe(404);
      expect(await page.title()).toContain('Page not found');
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Page not found');
      expect(await page.getByRole('main').getByRole('link', { name: 'Go to the home page' }).getAttribute('href')).toBe('/');
      await screenshot(page, '404');
    });
  });
});

describe('without JavaScript', () => {
  it('shows the news list, an article and the stats table from the server alone', async () => {
    await withPage(browser, { javaScriptEnabled: false }, async (page) => {
      await page.goto(`${site.url}/news/`);
      expect(await page.getByRole('main').getByRole('link', { name: newest.heading }).isVisible()).toBe(true);
      await screenshot(page, 'news-no-js');

      await page.goto(`${site.url}/news/${newest.id}/`);
      expect((await page.getByRole('main').getByRole('article').innerText()).replace(/\s+/g, ' ')).toContain(newest.firstParagraph);

      await page.goto(`${site.url}/stats/`);
      const table = page.getByRole('table');
      expect(await table.isVisible()).toBe(true);
      // The default range is the last 31 complete UTC days, all seeded.
      expect(await table.locator('tbody tr').count()).toBe(31);
      expect(await table.locator('tfoot').innerText()).toContain('Total (31 days)');
      // The charts are an enhancement: their hosts stay hidden and empty.
      expect(await page.locator('[data-chart] canvas').count()).toBe(0);
      await screenshot(page, 'stats-no-js');

      // The range form is a plain GET form: it works without the script.
      await page.getByLabel('From', { exact: true }).fill(await dayOffset(page, -10));
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(/\?startDate=/);
      expect(await table.locator('tbody tr').count()).toBe(11);
    });
  });
});

/** The `To` field's day plus `days`, as YYYY-MM-DD. */
async function dayOffset(page: Page, days: number): Promise<string> {
  const end = await page.getByLabel('To', { exact: true }).inputValue();
  return new Date(Date.parse(`${end}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}
