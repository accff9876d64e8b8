/**
 * The assistant over the real build (`node src/app/main.ts` serving ./dist): it answers from the
 * index `astro build` wrote into dist/server, which is not a public file, and the server bundle
 * carries no copy of the content collections for it to load.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSourcesLink } from '../../../src/features/chat/sources.ts';
import { siteNews } from '../../helpers/site-corpus.ts';
import { startServer, type RunningServer } from '../../helpers/server.ts';

let server: RunningServer;

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

const ask = (content: string) =>
  fetch(`${server.url}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: server.url },
    body: JSON.stringify({ messages: [{ role: 'user', content }] }),
  });

describe('the assistant over the built site', () => {
  it('answers from the index the build wrote, typos included', async () => {
    const answer = await ask('What is sellers.json?');
    expect(answer.status).toBe(200);
    expect(await answer.text()).toMatch(/^From "Our sellers\.json file[^"]*":\n[\s\S]+Read more: \/sellers\.json/);
    const typo = await ask('transparncy reprot');
    expect(parseSourcesLink(typo.headers.get('link')).map((source) => source.url)).toContain('/news/transparency-report-h1-2026');
    expect(await typo.text()).toContain('/news/transparency-report-h1-2026');
  });

  it('lists the newest published articles from the index', async () => {
    const newest = siteNews()
      .filter((doc) => !doc.draft)
      .toSorted((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, 3)
      .map((doc) => `/news/${doc.id}`);
    const answer = await ask("What's new?");
    expect(parseSourcesLink(answer.headers.get('link')).map((source) => source.url)).toEqual(newest);
    await answer.arrayBuffer();
  });

  it('keeps the index out of the public files', async () => {
    expect(existsSync('dist/server/assistant-index.sqlite')).toBe(true);
    expect(existsSync('dist/client/assistant-index.sqlite')).toBe(false);
    const response = await fetch(`${server.url}/assistant-index.sqlite`);
    expect(response.status).toBe(404);
    await response.arrayBuffer();
  });

  it('ships no content collection in the server bundle (nothing at run time loads the articles)', () => {
    // Astro emits its content data store as a server chunk only when an on-demand route reads a
    // collection; prerendered pages read it at build time.
    expect(readdirSync('dist/server/chunks').filter((file) => /data-layer-content|content-modules|content-assets/.test(file))).toEqual([]);
  });
});
