/**
 * What a visitor sees of the page shell at a phone's width (390 CSS px, an iPhone 12 to 15) and a
 * laptop's (1280 px), on every kind of page: the navigation on one line, nothing wider than the
 * viewport, the assistant's button clear of the footer's links once the page is scrolled to the
 * end. Screenshots of each go to test-results/screenshots/layout-<page>-<width>.png.
 * At 375 and 1280 px, on the home page, /stats/ and an article: the assistant's button clear of
 * every piece of content at every scroll position (screenshots chat-clear-<page>-<width>.png).
 * Also the small things a browser asks for on its own: /favicon.ico, /docs, the charset of /stats/.
 */
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { screenshot, useBrowserSite, withPage } from '../../helpers/browser.ts';

const { site, browser } = useBrowserSite();

const PAGES = [
  { name: 'home', path: '/' },
  { name: 'news', path: '/news/' },
  { name: 'contact', path: '/contact/' },
  { name: 'stats', path: '/stats/' },
  { name: 'docs-api', path: '/docs/api/' },
] as const;

const WIDTHS = [390, 1280] as const;

interface Box {
  label: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Viewport boxes of the chat toggle and of every footer link, read after scrolling to the end. */
async function boxesAtBottom(page: Page): Promise<{ toggle: Box; links: Box[] }> {
  await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
  return page.evaluate(() => {
    const box = (el: Element): Box => {
      const r = el.getBoundingClientRect();
      return { label: el.textContent?.trim() ?? '', left: r.left, top: r.top, right: r.right, bottom: r.bottom };
    };
    const toggle = document.querySelector('[data-chat-toggle]');
    if (!toggle) throw new Error('no chat toggle on the page');
    return { toggle: box(toggle), links: [...document.querySelectorAll('footer a')].map(box) };
  });
}

const overlaps = (a: Box, b: Box): boolean => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe.each(WIDTHS)('the page shell at %i px', (width) => {
  it.each(PAGES)('$path: the navigation on one line, no sideways scrolling, the assistant clear of the footer links', async ({ name, path }) => {
    await withPage(browser, { viewport: { width, height: 844 } }, async (page) => {
      const response = await page.goto(`${site.url}${path}`, { waitUntil: 'networkidle' });
      expect(response?.status()).toBe(200);

      const navTops = await page.locator('nav[aria-label="Main"] a').evaluateAll((links) => links.map((a) => (a as HTMLElement).offsetTop));
      expect(navTops.length).toBe(5);
      expect(new Set(navTops).size, `nav link tops ${navTops.join(', ')}`).toBe(1);

      const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
      expect(scrollWidth).toBeLessThanOrEqual(innerWidth);

      const { toggle, links } = await boxesAtBottom(page);
      expect(links.map((l) => l.label)).toContain('API docs');
      expect(links.filter((link) => overlaps(toggle, link)).map((l) => l.label)).toEqual([]);

      await screenshot(page, `layout-${name}-${width}`);
    });
  });
});

/**
 * The assistant's button must never hide what a reader came for: at a phone's width (375 px, the
 * narrowest common one) and a laptop's, on the home page, /stats/ and an article, its box meets no
 * content element's box at any scroll position from the top of the page to its end (a fixed
 * button slides over different content as the page scrolls, so one position proves nothing).
 */
const CONTENT_PAGES = [
  { name: 'home', path: '/' },
  { name: 'stats', path: '/stats/' },
  { name: 'article', path: '/news/contact-priorities/' },
] as const;

/** What a reader reads or operates: cards, table cells, headings, paragraphs, links, form fields, figures. */
const CONTENT = 'li, article, td, th, caption, h1, h2, h3, h4, p, a, label, input, select, textarea, button, img, canvas, pre';

/** Every visible content element (outside the assistant's own widget) the toggle's box meets, at the current scroll position. */
async function contentUnderToggle(page: Page): Promise<Array<{ element: string; scrollY: number }>> {
  return page.evaluate((selector) => {
    const toggle = document.querySelector('[data-chat-toggle]');
    if (!toggle) throw new Error('no chat toggle on the page');
    const t = toggle.getBoundingClientRect();
    const widget = toggle.closest('[data-chat]')!;
    return [...document.querySelectorAll(selector)]
      .filter((el) => !widget.contains(el) && !el.contains(toggle) && el.checkVisibility({ visibilityProperty: true }))
      .filter((el) => {
        const r = el.getBoundingClientRect();
        // 1 px boxes are visually hidden text (.visually-hidden), not something that can be covered.
        return r.width > 1 && r.height > 1 && t.left < r.right && r.left < t.right && t.top < r.bottom && r.top < t.bottom;
      })
      .map((el) => ({ element: `${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40)}"`, scrollY: Math.round(window.scrollY) }));
  }, CONTENT);
}

describe.each([
  { width: 375, height: 812 },
  { width: 1280, height: 800 },
])('the assistant\'s button at $width px', (viewport) => {
  it.each(CONTENT_PAGES)('covers no content of $path at any scroll position', async ({ name, path }) => {
    await withPage(browser, { viewport }, async (page) => {
      const response = await page.goto(`${site.url}${path}`, { waitUntil: 'networkidle' });
      expect(response?.status()).toBe(200);
      const shot = await screenshot(page, `chat-clear-${name}-${viewport.width}`);
      expect(readFileSync(shot).subarray(1, 4).toString('latin1')).toBe('PNG');

      const covered: Array<{ element: string; scrollY: number }> = [];
      const { scrollHeight } = await page.evaluate(() => ({ scrollHeight: document.documentElement.scrollHeight }));
      // Steps of a third of the viewport, then the very end.
      for (let y = 0; y < scrollHeight; y += Math.floor(viewport.height / 3)) {
        await page.evaluate((top) => window.scrollTo({ top, behavior: 'instant' }), y);
        covered.push(...(await contentUnderToggle(page)));
      }
      await page.evaluate(() => window.scrollTo({ top: document.documentElement.scrollHeight, behavior: 'instant' }));
      covered.push(...(await contentUnderToggle(page)));
      expect(covered).toEqual([]);
    });
  });
});

describe('the words between links', () => {
  it('keeps the spaces around the links of the news page\'s lead (Astro drops a line break next to an element)', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/news/`);
      const lead = await page.locator('main .lead').innerText();
      expect(lead).toContain('Also available as an RSS feed and as JSON.');
    });
  });
});

describe('what browsers and visitors ask for by address', () => {
  it('serves /stats/ as text/html; charset=utf-8', async () => {
    const response = await fetch(`${site.url}/stats/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('serves /favicon.ico, an ICO file', async () => {
    const response = await fetch(`${site.url}/favicon.ico`);
    expect(response.status).toBe(200);
    // ICONDIR (reserved 0, type 1 = icon, at least one image), little-endian.
    const head = new DataView(await response.arrayBuffer());
    expect([head.getUint16(0, true), head.getUint16(2, true), head.getUint16(4, true) > 0]).toEqual([0, 1, true]);
  });

  it('labels /favicon.ico as an icon', async () => {
    const response = await fetch(`${site.url}/favicon.ico`);
    await response.body?.cancel();
    expect(response.headers.get('content-type')).toMatch(/^image\/(x-icon|vnd\.microsoft\.icon)$/);
  });

  it('leads /docs to the API docs', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/docs`);
      await page.waitForURL(`${site.url}/docs/api/`);
      expect(await page.getByRole('heading', { level: 1 }).count()).toBe(1);
    });
  });
});

describe.each([
  { width: 375, height: 812 },
  { width: 1280, height: 800 },
])('the screens at $width px', (viewport) => {
  it('/stats/: every column of the daily table in view without sideways scrolling, and charts that span their cards', async () => {
    await withPage(browser, { viewport }, async (page) => {
      await page.goto(`${site.url}/stats/`, { waitUntil: 'networkidle' });
      await page.locator('[data-chart] canvas').first().waitFor();
      // Either every column is in view, or the table says it scrolls (large figures may not fit a phone).
      const wrap = await page.locator('[data-stats-table-wrap]').evaluate((el) => ({ overflows: el.scrollWidth > el.clientWidth + 1 }));
      expect(await page.locator('.scroll-hint').isVisible()).toBe(wrap.overflows);
      if (viewport.width >= 1280) expect(wrap.overflows).toBe(false);
      // The short labels a phone shows are for the eye; the headers keep their full names.
      for (const name of ['Day (UTC)', 'Transactions', 'Impressions', 'Revenue']) expect(await page.getByRole('columnheader', { name, exact: true }).count(), name).toBe(1);
      const charts = await page.locator('.metric').evaluateAll((cards) =>
        cards.map((card) => {
          const host = card.querySelector('[data-chart]')!.getBoundingClientRect();
          const plot = card.querySelector('.u-over')!.getBoundingClientRect();
          return { card: card.getBoundingClientRect().width, host: host.width, canvas: card.querySelector('canvas')!.getBoundingClientRect().width, plot: plot.width };
        }),
      );
      expect(charts).toHaveLength(3);
      for (const chart of charts) {
        expect(Math.abs(chart.canvas - chart.host)).toBeLessThanOrEqual(1);
        // The bars' area, not the axes and margins, takes most of the card (it took 65 % at 375 px).
        expect(chart.plot / chart.card).toBeGreaterThanOrEqual(0.7);
      }
      await screenshot(page, `screens-stats-${viewport.width}`);
    });
  });

  it('/stats/ on a 320 px phone: a cue on the side that hides columns, following the scroll', async () => {
    await withPage(browser, { viewport: { width: 320, height: viewport.height } }, async (page) => {
      await page.goto(`${site.url}/stats/`, { waitUntil: 'networkidle' });
      const frame = page.locator('.table-frame');
      await expect.poll(() => frame.getAttribute('data-more')).toBe('end');
      expect(await page.locator('.scroll-hint').isVisible()).toBe(true);
      await page.locator('[data-stats-table-wrap]').evaluate((el) => el.scrollTo({ left: el.scrollWidth, behavior: 'instant' }));
      await expect.poll(() => frame.getAttribute('data-more')).toBe('start');
      await screenshot(page, `screens-stats-320-${viewport.width}`);
    });
  });

  it('/docs/api/: an index of folded operations a few screens tall, a link to a response opening it in view, badges apart from their words', async () => {
    await withPage(browser, { viewport }, async (page) => {
      await page.goto(`${site.url}/docs/api/`, { waitUntil: 'networkidle' });
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      // 41,601 px at 1280 and 67,679 at 375 when every operation was unfolded.
      expect(height).toBeLessThan(viewport.height * 8);
      const operations = page.locator('details.operation');
      expect(await operations.count()).toBeGreaterThanOrEqual(5);
      expect(await page.locator('details.operation[open]').count()).toBe(0);
      await screenshot(page, `screens-docs-api-${viewport.width}`);

      await page.goto(`${site.url}/docs/api/#submitContact-400`);
      const heading = page.locator('[id="submitContact-400"]');
      await heading.waitFor({ state: 'visible' });
      expect(await heading.evaluate((el) => (el.closest('details.operation') as HTMLDetailsElement).open)).toBe(true);
      await expect.poll(() => heading.evaluate((el) => { const r = el.getBoundingClientRect(); return r.top >= 0 && r.bottom <= window.innerHeight; })).toBe(true);
      // "400 Bad Request", not "400Bad Request": the badge keeps a gap before the reason.
      const gap = await heading.evaluate((el) => el.querySelector('span:last-child')!.getBoundingClientRect().left - el.querySelector('.badge')!.getBoundingClientRect().right);
      expect(gap).toBeGreaterThanOrEqual(4);
      expect((await heading.innerText()).replace(/\s+/g, ' ').trim()).toMatch(/^400 \S/);
    });
  });
});
