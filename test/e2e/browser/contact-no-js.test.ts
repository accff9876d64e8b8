/**
 * The contact form in Chromium with JavaScript off: it posts natively, an
 * invalid submission comes back as the contact page with the values kept and each error beside
 * its field, and a good one lands on the thank-you page (303 See Other), stored.
 */
import { describe, expect, it } from 'vitest';
import { screenshot, storedSubmissions, useBrowserSite, withPage } from '../../helpers/browser.ts';

const { site, browser } = useBrowserSite();

describe('the contact form without JavaScript', () => {
  it('shows the server’s errors beside the fields with the values kept, then sends and lands on the thank-you page', async () => {
    await withPage(browser, { javaScriptEnabled: false, expected: [{ url: `${site.url}/api/contact`, status: 400 }] }, async (page) => {
      await page.goto(`${site.url}/contact/`);
      await page.getByLabel('Name').fill('Ada Lovelace');
      await page.getByLabel('Job title').fill('Analyst');
      const email = page.getByLabel('Work email');
      // The browser's own check lets it through; RFC 5321 and the server do not.
      await email.fill('ada..lovelace@example.com');
      await page.getByRole('radio', { name: 'Standard: a question' }).check();
      await page.getByRole('textbox', { name: /^Message/ }).fill('Line one\nLine <two> & "three"');
      const [answer] = await Promise.all([page.waitForResponse(`${site.url}/api/contact`), page.getByRole('button', { name: 'Send message' }).click()]);
      expect(answer.status()).toBe(400);
      await page.waitForLoadState();

      // The same page, from the server: the errors where the person looks, and the title says so.
      expect(await page.title()).toMatch(/^Error: Contact/);
      const error = page.locator('#contact-email-error');
      expect(await error.isVisible()).toBe(true);
      expect(await error.textContent()).toBe('Work email must be an email address such as ada@example.com.');
      expect(await email.getAttribute('aria-invalid')).toBe('true');
      expect((await email.getAttribute('aria-describedby'))?.split(' ')).toEqual(['contact-email-error', 'contact-email-hint']);
      const summary = page.getByRole('alert').filter({ hasText: 'Please correct this before sending:' });
      expect(await summary.isVisible()).toBe(true);
      expect(await summary.getByRole('link').getAttribute('href')).toBe('#contact-email');
      // The summary takes focus on arrival (autofocus), so it is read first.
      expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-contact-summary'))).toBe(true);
      // What was typed is still there.
      expect(await page.getByLabel('Name').inputValue()).toBe('Ada Lovelace');
      expect(await page.getByLabel('Job title').inputValue()).toBe('Analyst');
      expect(await email.inputValue()).toBe('ada..lovelace@example.com');
      expect(await page.getByRole('radio', { name: 'Standard: a question' }).isChecked()).toBe(true);
      expect(await page.getByRole('textbox', { name: /^Message/ }).inputValue()).toBe('Line one\nLine <two> & "three"');
      expect(await storedSubmissions(site.databaseUrl)).toEqual([]);
      await screenshot(page, 'contact-no-js-invalid');

      await email.fill('ada@example.com');
      await Promise.all([page.waitForURL(`${site.url}/contact/thanks/`), page.getByRole('button', { name: 'Send message' }).click()]);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Thank you, your message was sent');
      await screenshot(page, 'contact-no-js-sent');
      // Browsers send a textarea's line breaks as CRLF (HTML standard, form submission).
      expect(await storedSubmissions(site.databaseUrl)).toEqual([
        { name: 'Ada Lovelace', job_title: 'Analyst', work_email: 'ada@example.com', priority: 'standard', message: 'Line one\r\nLine <two> & "three"' },
      ]);

      // Reloading the thank-you page sends nothing again (it was reached with GET).
      await page.reload();
      expect(await storedSubmissions(site.databaseUrl)).toHaveLength(1);
    });
  });
});
