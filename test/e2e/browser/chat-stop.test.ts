/**
 * Stopping an answer, in Chromium against the real server with an LLM configured: a local fake
 * provider (test/fixtures/fake-llm.ts, the real streaming wire protocol) sends one token every
 * 100 ms, so an answer is deterministically still streaming when Stop is clicked. The proof that
 * the server stopped generating is on the server side: the provider sees its request hang up
 * with most tokens unsent, and the server logs the stopped reply.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, screenshot, startSite, withPage, type Site } from '../../helpers/browser.ts';
import { startFakeLlm, type FakeLlm } from '../../fixtures/fake-llm.ts';

let llm: FakeLlm;
let site: Site;
let browser: Browser;

beforeAll(async () => {
  llm = await startFakeLlm();
  [site, browser] = await Promise.all([startSite({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'fake-model', LLM_TIMEOUT_MS: '20000' }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await site?.stop();
  await llm?.close();
});

const TOKENS = Array.from({ length: 300 }, (_, i) => `word${i} `);

/** The server's log lines about replies stopped early, parsed. */
function stoppedLines(): Array<Record<string, unknown>> {
  return site.server.output.filter((line) => line.includes('"msg":"chat reply stopped early"')).map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** The provider request that carried `question` as its newest turn (the server's warm-up sends one of its own). */
function upstreamFor(question: string): (typeof llm.requests)[number] | undefined {
  return llm.requests.find((request) => request.body.messages?.at(-1)?.content === question);
}

async function openChat(page: import('playwright-core').Page): Promise<void> {
  await page.goto(`${site.url}/`, { waitUntil: 'networkidle' });
  await page.getByRole('button', { name: 'Ask the assistant' }).click();
  await page.getByRole('dialog', { name: 'Site assistant' }).waitFor({ state: 'visible' });
}

describe('stopping an answer', () => {
  it('stops a streaming answer: the partial text and its sources stay, and the server stops generating', async () => {
    llm.behaviour = { kind: 'reply', tokens: TOKENS, delayMs: 100 };
    llm.requests.length = 0;
    const before = stoppedLines().length;
    // The widget reads the reply with getReader(), and here aborts it: see WatchOptions.streamed.
    await withPage(browser, { streamed: [`${site.url}/api/chat`] }, async (page) => {
      await openChat(page);
      const question = 'What is sellers.json and who is listed in it?';
      await page.getByRole('textbox', { name: 'Your question' }).fill(question);
      const send = page.getByRole('button', { name: 'Send' });
      await send.click();

      // Stop takes Send's place, and its focus.
      const stop = page.getByRole('button', { name: 'Stop' });
      await stop.waitFor({ state: 'visible' });
      expect(await send.isVisible()).toBe(false);
      expect(await page.evaluate(() => document.activeElement?.hasAttribute('data-chat-stop'))).toBe(true);

      // Some of the answer and its sources have arrived.
      const reply = page.locator('[data-chat-log] .chat-msg--assistant').last();
      await page.waitForFunction(() => (document.querySelector('[data-chat-log] .chat-msg--assistant:last-of-type')?.textContent ?? '').includes('word2 '));
      const sources = page.getByRole('list', { name: /^Sources?$/ }).getByRole('link');
      expect(await sources.count()).toBeGreaterThan(0);
      await screenshot(page, 'chat-streaming-stop');

      await page.keyboard.press('Enter'); // the focused Stop button
      await stop.waitFor({ state: 'hidden' });
      expect(await send.isVisible()).toBe(true);
      // Focus goes back to the question field, and the status line says what happened.
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('chat-input');
      expect(await page.getByRole('status').textContent()).toBe('Stopped. The answer above is incomplete.');
      const text = (await reply.textContent()) ?? '';
      expect(text.startsWith('word0 word1 word2 ')).toBe(true);
      expect(text.endsWith(' […]')).toBe(true);
      expect(await reply.getAttribute('aria-busy')).toBeNull();
      await screenshot(page, 'chat-stopped');

      // Server side: the provider's request was hung up long before its last token...
      const upstream = upstreamFor(question);
      await upstream!.finished;
      expect(upstream!.abortedByClient).toBe(true);
      expect(upstream!.tokensSent).toBeLessThan(TOKENS.length / 2);
      // ...and the server logged the reply as stopped, with what it had sent.
      await expect.poll(() => stoppedLines().length).toBe(before + 1);
      const line = stoppedLines().at(-1)!;
      expect(line).toMatchObject({ assistant: 'llm' });
      expect(line['pieces']).toBeGreaterThanOrEqual(3);
      expect(line['pieces']).toBeLessThan(TOKENS.length / 2);

      // The sources point at real pages of the site.
      const hrefs = await sources.evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href));
      for (const href of hrefs) {
        expect(new URL(href).origin).toBe(site.url);
        expect((await page.request.get(href)).status()).toBe(200);
      }

      // The conversation goes on from the partial answer.
      llm.behaviour = { kind: 'reply', tokens: ['Glad ', 'to ', 'help.'] };
      await page.getByRole('textbox', { name: 'Your question' }).fill('Thanks, and the rest?');
      await send.click();
      await page.waitForFunction(() => document.querySelector('[data-chat-log] .chat-msg--assistant:last-of-type')?.textContent === 'Glad to help.');
      const sent = upstreamFor('Thanks, and the rest?')!.body.messages!.map((m) => m.role);
      expect(sent.slice(1)).toEqual(['user', 'user']);
    });
  });

  it('stops before the first token: the question comes back to the field, and the upstream request is hung up', async () => {
    llm.behaviour = { kind: 'stall', tokens: [], after: 0 };
    llm.requests.length = 0;
    await withPage(browser, async (page, watched) => {
      await openChat(page);
      const field = page.getByRole('textbox', { name: 'Your question' });
      await field.fill('What is sellers.json?');
      await field.press('Enter');
      await expect.poll(() => upstreamFor('What is sellers.json?') !== undefined).toBe(true);
      await page.getByRole('button', { name: 'Stop' }).click();
      await page.getByRole('button', { name: 'Send' }).waitFor({ state: 'visible' });
      expect(await page.getByRole('status').textContent()).toBe('Stopped before the answer began.');
      expect(await field.inputValue()).toBe('What is sellers.json?');
      expect(await page.locator('[data-chat-log] .chat-msg').count()).toBe(0);
      const upstream = upstreamFor('What is sellers.json?')!;
      await upstream.finished;
      expect(upstream.abortedByClient).toBe(true);
      // Aborted before any response, Chromium reports the request as failed, as it should: that
      // one failure, and nothing else, is expected.
      const aborted = `request failed: POST ${site.url}/api/chat: net::ERR_ABORTED`;
      expect(watched.problems).toEqual([aborted]);
      watched.problems.length = 0;
    });
  });
});
