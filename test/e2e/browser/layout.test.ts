/**
 * What a visitor sees of the page shell at a phone's width (390 CSS px, an iPhone 12 to 15) and a
 * laptop's (1280 px), on every kind of page: the navigation on one line, nothing wider than the
 * viewport, the floating assistant button clear of the footer's links once the page is scrolled
 * to the end. Screenshots of each go to test-results/screenshots/layout-<page>-<width>.png.
 * Also the small things a browser asks for on its own: /favicon.ico, /docs, the charset of /stats/.
 */
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
