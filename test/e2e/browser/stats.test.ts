/**
 * /stats in Chromium against the real server with 90 materialized days: the charts are drawn
 * with the data, and a new range is answered in place from the public data API (no reload).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { withPage, screenshot, useBrowserSite, utcDay } from '../../helpers/browser.ts';

const { site, browser } = useBrowserSite();

/** The daily figures table, named by its caption (uPlot's legends are tables too). */
function statsTable(page: Page) {
  return page.getByRole('table', { name: /^Transactions, impressions and revenue per UTC day/ });
}

/** Pixels of a canvas that are not fully transparent: 0 for an empty chart. */
function paintedPixels(page: Page, selector: string): Promise<number> {
  return page.evaluate((sel) => {
    const canvas = document.querySelector<HTMLCanvasElement>(sel);
    const context = canvas?.getContext('2d');
    if (!canvas || !context) return 0;
    const { data } = context.getImageData(0, 0, canvas.width, canvas.height);
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted += 1;
    return painted;
  }, selector);
}

describe('the stats page', () => {
  it('draws a chart per series with the data shown in the table', async () => {
    await withPage(browser, async (page) => {
      const response = await page.goto(`${site.url}/stats/`, { waitUntil: 'networkidle' });
      expect(response?.status()).toBe(200);
      expect(await statsTable(page).locator('tbody tr').count()).toBe(31);
      for (const key of ['txn', 'impr', 'revenue']) {
        const host = page.locator(`[data-chart="${key}"]`);
        await host.locator('.uplot canvas').waitFor({ state: 'visible' });
        const box = await host.locator('canvas').boundingBox();
        expect(box?.width, key).toBeGreaterThan(100);
        expect(box?.height, key).toBeGreaterThan(50);
        expect(await paintedPixels(page, `[data-chart="${key}"] canvas`), key).toBeGreaterThan(500);
      }
      await screenshot(page, 'stats');
    });
  });

  it('answers a new range in place: table, totals, chart and address change without a reload', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/stats/`, { waitUntil: 'networkidle' });
      const rows = statsTable(page).locator('tbody tr');
      expect(await rows.count()).toBe(31);
      const firstDayBefore = await rows.first().locator('time').getAttribute('datetime');
      const totalBefore = await page.locator('[data-total="txn"]').textContent();
      // A reload would lose this; an in-place update keeps it.
      await page.evaluate(() => ((window as unknown as { __e2eMarker: string }).__e2eMarker = 'still here'));
      let documentRequests = 0;
      page.on('request', (request) => {
        if (request.isNavigationRequest()) documentRequests += 1;
      });

      const start = utcDay(-60);
      const end = utcDay(-54);
      await page.getByLabel('From', { exact: true }).fill(start);
      await page.getByLabel('To', { exact: true }).fill(end);
      const answer = page.waitForResponse((r) => r.url().startsWith(`${site.url}/api/v1/public/data?`));
      await page.getByRole('button', { name: 'Show' }).click();
      const response = await answer;
      expect(response.status()).toBe(200);
      expect(new URL(response.url()).searchParams.get('startDate')).toBe(start);

      await page.waitForFunction((n) => document.querySelectorAll('[data-stats-rows] tr').length === n, 7);
      expect(await rows.locator('time').evaluateAll((times) => times.map((t) => t.getAttribute('datetime')))).toEqual(
        Array.from({ length: 7 }, (_, i) => utcDay(-60 + i)),
      );
      expect(firstDayBefore).not.toBe(start);
      expect(await page.locator('[data-total="txn"]').textContent()).not.toBe(totalBefore);
      expect(await statsTable(page).locator('tfoot').innerText()).toContain('Total (7 days)');
      expect(await page.locator('[data-chart="txn"]').getAttribute('aria-label')).toContain(`${start} to ${end}`);
      expect(await paintedPixels(page, '[data-chart="txn"] canvas')).toBeGreaterThan(500);

      expect(await page.evaluate(() => (window as unknown as { __e2eMarker?: string }).__e2eMarker)).toBe('still here');
      expect(documentRequests).toBe(0);
      // The address follows (history.replaceState), so the view can be shared or reloaded.
      expect(new URL(page.url()).searchParams.get('startDate')).toBe(start);
      expect(new URL(page.url()).searchParams.get('endDate')).toBe(end);
      await screenshot(page, 'stats-new-range');
    });
  });

  it('writes every day as YYYY-MM-DD, as its hint says, in a browser set to American English', async () => {
    await withPage(browser, { locale: 'en-US' }, async (page) => {
      await page.goto(`${site.url}/stats/`, { waitUntil: 'networkidle' });
      const iso = /^\d{4}-\d{2}-\d{2}$/;
      expect(await page.locator('#range-hint').textContent()).toContain('YYYY-MM-DD');
      for (const label of ['From', 'To']) {
        const field = page.getByLabel(label, { exact: true });
        // A date control would show its value as 10/25/2026 here whatever the value is: a text
        // field shows exactly its value.
        expect(await field.evaluate((input) => (input as HTMLInputElement).type), label).toBe('text');
        expect(await field.inputValue(), label).toMatch(iso);
      }
      const days = await statsTable(page).locator('tbody th time').allTextContents();
      expect(days.length).toBe(31);
      for (const day of days) expect(day).toMatch(iso);
      const text = await page.locator('main').innerText();
      expect(text).not.toMatch(/\b\d{1,2}\/\d{1,2}\/\d{2,4}\b/);
      expect(text).not.toMatch(/\b\d{1,2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)/);
      expect(text).toContain(`Showing ${utcDay(-31)} to ${utcDay(-1)}`);
    });
  });

  it('shows the data API’s message for a range longer than 31 days, keeping the figures shown', async () => {
    await withPage(browser, { expected: [{ url: /\/api\/v1\/public\/data\?/, status: 400 }] }, async (page) => {
      await page.goto(`${site.url}/stats/`, { waitUntil: 'networkidle' });
      await page.getByLabel('From', { exact: true }).fill(utcDay(-80));
      await page.getByLabel('To', { exact: true }).fill(utcDay(-2));
      const answer = page.waitForResponse((r) => r.url().startsWith(`${site.url}/api/v1/public/data?`));
      await page.getByRole('button', { name: 'Show' }).click();
      expect((await answer).status()).toBe(400);
      const alert = page.locator('[data-stats-error]');
      await page.waitForFunction(() => (document.querySelector('[data-stats-error]')?.textContent ?? '') !== '');
      expect(await alert.getAttribute('role')).toBe('alert');
      expect(await alert.textContent()).toMatch(/^Invalid range: /);
      // The field(s) the message blames are marked and point at it.
      const marked = await page.locator('[data-stats-form] input[aria-invalid="true"]').evaluateAll((inputs) => inputs.map((i) => i.getAttribute('aria-describedby')));
      expect(marked.length).toBeGreaterThan(0);
      for (const describedBy of marked) expect(describedBy?.split(' ')).toContain('stats-error');
      expect(await statsTable(page).locator('tbody tr').count()).toBe(31);
      await screenshot(page, 'stats-invalid-range');
    });
  });
});
