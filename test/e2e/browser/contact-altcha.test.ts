/**
 * The contact form in Chromium with the proof-of-work check on: the page loads
 * the ALTCHA widget, the widget solves the server's challenge in a worker under the page's CSP,
 * and the submission carries the solution and is stored; the solution is spent.
 */
import { describe, expect, it } from 'vitest';
import { createDb } from '../../../src/db/create-db.ts';
import { screenshot, useBrowserSite, withPage } from '../../helpers/browser.ts';

const { site, browser } = useBrowserSite({ CONTACT_ALTCHA_HMAC_KEY: 'browser-test-altcha-key-0123456789abcdef' });

async function counts(databaseUrl: string): Promise<{ submissions: number; spent: number }> {
  const handle = createDb(databaseUrl);
  try {
    const submissions = await handle.kysely.selectFrom('contact_submission').select('id').execute();
    const spent = await handle.kysely.selectFrom('contact_altcha_used').select('signature').execute();
    return { submissions: submissions.length, spent: spent.length };
  } finally {
    await handle.close();
  }
}

describe('the contact form with the proof-of-work check on', () => {
  it('solves the challenge in the widget and sends the submission with its solution', { timeout: 240_000 }, async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/contact/`, { waitUntil: 'networkidle' });
      const widget = page.locator('altcha-widget');
      await widget.waitFor({ state: 'visible' });
      await page.getByLabel('Name').fill('Grace Hopper');
      await page.getByLabel('Work email').fill('grace@example.com');
      await page.getByRole('radio', { name: 'Message: no rush' }).check();
      const answer = page.waitForResponse((response) => response.url() === `${site.url}/api/contact`, { timeout: 180_000 });
      await page.getByRole('button', { name: 'Send message' }).click();
      const response = await answer;
      expect(response.status()).toBe(200);
      expect(JSON.parse(response.request().postData() ?? '{}')).toHaveProperty('altcha');

      await page.getByRole('heading', { name: 'Thank you, your message was sent' }).waitFor({ state: 'visible' });
      await screenshot(page, 'contact-altcha-sent');
      expect(await counts(site.databaseUrl)).toEqual({ submissions: 1, spent: 1 });

      // The next message needs a new solution: the widget was reset and solves again.
      await page.getByRole('button', { name: 'Send another message' }).click();
      await page.getByLabel('Name').fill('Grace Hopper');
      await page.getByLabel('Work email').fill('grace@example.com');
      await page.getByRole('radio', { name: 'High: something is broken now' }).check();
      const second = page.waitForResponse((r) => r.url() === `${site.url}/api/contact`, { timeout: 180_000 });
      await page.getByRole('button', { name: 'Send message' }).click();
      expect((await second).status()).toBe(200);
      await page.getByRole('heading', { name: 'Thank you, your message was sent' }).waitFor({ state: 'visible' });
      expect(await counts(site.databaseUrl)).toEqual({ submissions: 2, spent: 2 });
    });
  });
});
