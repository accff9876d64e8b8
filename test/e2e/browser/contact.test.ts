/**
 * The contact form in Chromium against the real server: errors shown beside the field for a bad
 * address (caught in the browser, and caught by the server when only it can tell), a success
 * state for a good submission, and the submission stored in the server's database.
 */
import { describe, expect, it } from 'vitest';
import { withPage, screenshot, storedSubmissions, useBrowserSite } from '../../helpers/browser.ts';

const { site, browser } = useBrowserSite();

describe('the contact form', () => {
  it('shows an error beside the email field for an address the browser can tell is wrong, without sending', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/contact/`, { waitUntil: 'networkidle' });
      let posts = 0;
      page.on('request', (request) => {
        if (request.method() === 'POST') posts += 1;
      });
      await page.getByLabel('Name').fill('Ada Lovelace');
      const email = page.getByLabel('Work email');
      await email.fill('ada@example');
      await page.getByRole('radio', { name: 'Standard: a question' }).check();
      await page.getByRole('button', { name: 'Send message' }).click();

      const error = page.locator('#contact-email-error');
      await error.waitFor({ state: 'visible' });
      expect(await error.textContent()).toBe('Work email must be an email address such as ada@example.com.');
      expect(await email.getAttribute('aria-invalid')).toBe('true');
      // The message is tied to the field, so a screen reader reads it with the input.
      expect((await email.getAttribute('aria-describedby'))?.split(' ')).toContain('contact-email-error');
      expect(posts).toBe(0);
      await screenshot(page, 'contact-invalid-email');

      // Editing the field clears its error.
      await email.fill('ada@example.com');
      expect(await error.isHidden()).toBe(true);
      expect(await email.getAttribute('aria-invalid')).toBeNull();
    });
  });

  it('shows the server’s field error after a 400 for an address only the server rejects', async () => {
    await withPage(browser, { expected: [{ url: `${site.url}/api/contact`, status: 400 }] }, async (page) => {
      await page.goto(`${site.url}/contact/`, { waitUntil: 'networkidle' });
      await page.getByLabel('Name').fill('Ada Lovelace');
      const email = page.getByLabel('Work email');
      // Passes the page's loose shape check; RFC 5321 forbids the double dot, and zod's check too.
      await email.fill('ada..lovelace@example.com');
      await page.getByRole('radio', { name: 'Standard: a question' }).check();
      const answer = page.waitForResponse((response) => response.url() === `${site.url}/api/contact`);
      await page.getByRole('button', { name: 'Send message' }).click();
      expect((await answer).status()).toBe(400);

      const error = page.locator('#contact-email-error');
      await error.waitFor({ state: 'visible' });
      expect(await error.textContent()).toContain('Work email must be an email address');
      expect(await email.getAttribute('aria-invalid')).toBe('true');
      expect(await page.getByRole('heading', { name: 'Thank you, your message was sent' }).isVisible()).toBe(false);
      expect(await storedSubmissions(site.databaseUrl)).toEqual([]);
    });
  });

  it('shows the success state for a good submission and the submission is in the database', async () => {
    await withPage(browser, async (page) => {
      await page.goto(`${site.url}/contact/`, { waitUntil: 'networkidle' });
      await screenshot(page, 'contact');
      await page.getByLabel('Name').fill('Grace Hopper');
      await page.getByLabel('Job title').fill('Researcher');
      await page.getByLabel('Work email').fill('grace@example.com');
      await page.getByRole('radio', { name: 'High: something is broken now' }).check();
      await page.getByRole('textbox', { name: /^Message/ }).fill('Our campaign stopped delivering at 09:00 UTC.');
      const answer = page.waitForResponse((response) => response.url() === `${site.url}/api/contact`);
      await page.getByRole('button', { name: 'Send message' }).click();
      expect((await answer).status()).toBeLessThan(300);

      const success = page.getByRole('heading', { name: 'Thank you, your message was sent' });
      await success.waitFor({ state: 'visible' });
      // It says where the answer will go.
      expect(await page.locator('[data-contact-success]').innerText()).toContain('grace@example.com');
      // The form gives way to the success message, which takes focus (announced on arrival).
      expect(await page.locator('form[data-contact-form]').isHidden()).toBe(true);
      expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-contact-success'))).toBe(true);
      await screenshot(page, 'contact-sent');

      expect(await storedSubmissions(site.databaseUrl)).toEqual([
        { name: 'Grace Hopper', job_title: 'Researcher', work_email: 'grace@example.com', priority: 'high', message: 'Our campaign stopped delivering at 09:00 UTC.' },
      ]);
    });
  });
});
