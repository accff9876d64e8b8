/**
 * The site assistant's widget in Chromium against the real server (built-in assistant, no LLM):
 * its code loads on the first click, the reply grows in the live region while it streams, and
 * the pages it came from are listed under it as links. (Answers are
 * `p.chat-msg--assistant`, each followed by its sources box when it has one: hence
 * `:last-of-type`, the last paragraph of the log.)
 */
import { describe, expect, it } from 'vitest';
import { withPage, screenshot, useBrowserSite } from '../../helpers/browser.ts';

const { site, browser } = useBrowserSite();

/** One observation of the reply bubble, taken by a MutationObserver in the page. */
interface Sample {
  /** Characters of reply text at that moment. */
  length: number;
  /** Whether the reply was still marked aria-busy (streaming). */
  busy: boolean;
}

describe('the chat widget', () => {
  it('loads its code on the first click and opens a labelled panel with focus in the question field', async () => {
    await withPage(browser, async (page) => {
      const scripts: string[] = [];
      page.on('request', (request) => {
        if (request.resourceType() === 'script') scripts.push(request.url());
      });
      await page.goto(`${site.url}/news/`, { waitUntil: 'networkidle' });
      const before = scripts.length;
      const toggle = page.getByRole('button', { name: 'Ask the assistant' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      expect(await page.getByRole('dialog', { name: 'Site assistant' }).isVisible()).toBe(false);

      await toggle.click();
      const dialog = page.getByRole('dialog', { name: 'Site assistant' });
      await dialog.waitFor({ state: 'visible' });
      expect(scripts.length).toBeGreaterThan(before);
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('chat-input');

      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-chat-toggle'))).toBe(true);
    });
  });

  it('shows the reply growing in the live region while it streams, then complete', async () => {
    // The widget reads the reply with getReader(); see WatchOptions.streamed for why that matters.
    await withPage(browser, { streamed: [`${site.url}/api/chat`] }, async (page) => {
      await page.goto(`${site.url}/`, { waitUntil: 'networkidle' });
      await page.getByRole('button', { name: 'Ask the assistant' }).click();
      const log = page.getByRole('log', { name: 'Conversation' });
      await page.getByRole('dialog', { name: 'Site assistant' }).waitFor({ state: 'visible' });
      expect(await log.getAttribute('aria-live')).toBe('polite');

      // Record the reply's length at every change, from inside the page, so no moment is missed
      // however fast the chunks arrive.
      await page.evaluate(() => {
        const region = document.querySelector('[data-chat-log]')!;
        const samples: Array<{ length: number; busy: boolean }> = [];
        (window as unknown as { __chatSamples: typeof samples }).__chatSamples = samples;
        new MutationObserver(() => {
          const reply = region.querySelector('.chat-msg--assistant:last-of-type');
          if (reply) samples.push({ length: reply.textContent?.length ?? 0, busy: reply.getAttribute('aria-busy') === 'true' });
        }).observe(region, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['aria-busy'] });
      });

      await page.getByRole('textbox', { name: 'Your question' }).fill('How do I get the daily statistics from the data API?');
      const answer = page.waitForResponse((response) => response.url() === `${site.url}/api/chat`);
      await page.getByRole('button', { name: 'Send' }).click();
      const response = await answer;
      expect(response.status()).toBe(200);
      expect(response.headers()['content-type']).toMatch(/^text\/plain/);

      const reply = log.locator('.chat-msg--assistant').last();
      await page.waitForFunction(() => {
        const last = document.querySelector('[data-chat-log] .chat-msg--assistant:last-of-type');
        return last !== null && !last.hasAttribute('aria-busy') && (last.textContent ?? '').length > 0;
      });
      const finalText = (await reply.textContent()) ?? '';
      // The stream ended normally: a broken one would take the question back and say so.
      expect(await page.locator('[data-chat-notice]').textContent()).toBe('');
      const samples = await page.evaluate(() => (window as unknown as { __chatSamples: Sample[] }).__chatSamples);

      // While streaming, the text grew through at least two distinct non-empty lengths, never shrank,
      // and each was a part of the final reply.
      const streaming = samples.filter((s) => s.busy && s.length > 0).map((s) => s.length);
      expect(new Set(streaming).size).toBeGreaterThanOrEqual(2);
      expect(streaming).toEqual([...streaming].sort((a, b) => a - b));
      expect(streaming[0]).toBeLessThan(finalText.length);
      expect(Math.max(...streaming)).toBeLessThanOrEqual(finalText.length);
      expect(finalText.length).toBeGreaterThan(40);
      // The question is in the conversation too, and the reply points somewhere on the site.
      expect(await log.locator('.chat-msg--user').textContent()).toBe('How do I get the daily statistics from the data API?');
      expect(await reply.getByRole('link').count()).toBeGreaterThan(0);
      await screenshot(page, 'chat');
    });
  });

  it('lists the sources of an answer as links to real pages, and keeps them across a reload', async () => {
    await withPage(browser, { streamed: [`${site.url}/api/chat`] }, async (page) => {
      await page.goto(`${site.url}/`, { waitUntil: 'networkidle' });
      await page.getByRole('button', { name: 'Ask the assistant' }).click();
      await page.getByRole('dialog', { name: 'Site assistant' }).waitFor({ state: 'visible' });
      const answer = page.waitForResponse((response) => response.url() === `${site.url}/api/chat`);
      await page.getByRole('textbox', { name: 'Your question' }).fill("What's new?");
      await page.getByRole('button', { name: 'Send' }).click();
      const header = (await answer).headers()['link'] ?? '';
      expect(header).toMatch(/rel="via"/);

      const sources = page.getByRole('list', { name: 'Sources' });
      await sources.waitFor();
      await page.waitForFunction(() => !document.querySelector('[data-chat-log] [aria-busy]'));
      const links = sources.getByRole('link');
      expect(await links.count()).toBe(3);
      const hrefs = await links.evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
      for (const href of hrefs) {
        expect(href.startsWith(`${site.url}/news/`)).toBe(true);
        const target = await page.request.get(href);
        expect(target.status()).toBe(200);
        expect(target.headers()['content-type']).toMatch(/^text\/html/);
      }
      // The link text is the article's title, and following it opens that article.
      const title = (await links.first().textContent()) ?? '';
      expect(title.length).toBeGreaterThan(5);
      await page.reload({ waitUntil: 'networkidle' });
      await page.getByRole('button', { name: 'Ask the assistant' }).click();
      const kept = page.getByRole('list', { name: 'Sources' }).getByRole('link');
      expect(await kept.evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href))).toEqual(hrefs);
      await kept.first().click();
      await page.waitForURL(hrefs[0]!);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain(title);
    });
  });

  it('restores a saved conversation without turning unsafe sources or userinfo URLs into links', async () => {
    await withPage(browser, async (page) => {
      // What another script of the origin (or the visitor) could have left in sessionStorage.
      await page.addInitScript(() => {
        const turns = [
          { role: 'user', content: 'Where is the news?' },
          {
            role: 'assistant',
            content: 'See http://site@evil.example/login or /news/ for more.',
            sources: [
              { url: 'javascript:alert(document.domain)', title: 'Script source' },
              { url: 'http://user:pw@evil.example/', title: 'Userinfo source' },
              { url: '/news/', title: 'News' },
            ],
          },
        ];
        sessionStorage.setItem('site-assistant:conversation:v1', JSON.stringify(turns));
      });
      await page.goto(`${site.url}/`, { waitUntil: 'networkidle' });
      await page.getByRole('button', { name: 'Ask the assistant' }).click();
      await page.getByRole('dialog', { name: 'Site assistant' }).waitFor({ state: 'visible' });
      const log = page.getByRole('log', { name: 'Conversation' });
      await log.getByText('Where is the news?').waitFor();
      const links = await page.$$eval('[data-chat-log] a', (anchors) => anchors.map((a) => ({ href: a.getAttribute('href'), text: a.textContent })));
      expect(links).toEqual([
        { href: `${site.url}/news/`, text: '/news/' },
        { href: `${site.url}/news/`, text: 'News' },
      ]);
      // The userinfo URL is still there to read, as text.
      expect(await page.locator('[data-chat-log] .chat-msg--assistant').first().textContent()).toBe('See http://site@evil.example/login or /news/ for more.');
      expect(await page.locator('[data-chat-log]').textContent()).not.toContain('Script source');
    });
  });
});
