/**
 * Scheduled publishing end to end (src/features/news/schedule.ts): a build of a copy of the
 * repository with one article whose createdAt is in 2099, served by real servers whose clock the
 * test sets (SITE_CLOCK_OFFSET_MS, refused in production):
 * - before its instant it is nowhere: its page and picture answer 404 at every address one could
 *   guess, and neither the news list, the home page, the feed, the sitemap, /api/news, the search
 *   index (in Chromium) nor the assistant names it; no file of dist/client holds its words;
 * - after its instant it is everywhere;
 * - across the instant, a client polling two instances of the build (a fleet) never gets a
 *   failed request, and the two switch together: in the interleaved sequence of answers, once one
 *   instance shows the article, every later answer from either does.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.ts';
import { buildSiteWith, type BuiltSite } from '../helpers/site-build.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const ID = 'scheduled-fixture';
const WORD = 'walrusfjord';
const HEADING = 'Embargoed announcement of the walrus region';
const AT = Date.parse('2099-01-01T00:00:00Z');
/** How long after the fleet's launch its clock reaches the instant: time to start both and see the old edition. */
const LEAD_MS = 20_000;

let built: BuiltSite;
const servers: RunningServer[] = [];
let browser: Browser;

beforeAll(async () => {
  [built, browser] = await Promise.all([
    buildSiteWith({ [ID]: { heading: HEADING, createdAt: '2099-01-01T00:00:00Z', body: `The ${WORD} opens for bidding.\n\n## Details\n\nMore about the ${WORD}.` } }, 'scheduled'),
    launchBrowser(),
  ]);
}, 240_000);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.stop()));
  await browser?.close();
  built?.remove();
});

/** A server of the build whose clock runs `offset` ms ahead; limits high enough for a polling client. */
async function serverWithOffset(offset: number): Promise<RunningServer> {
  const server = await startServer({ DIST_DIR: built.dist, SITE_CLOCK_OFFSET_MS: String(Math.round(offset)), RATE_LIMIT_SITE_MINUTE: '1000000', RATE_LIMIT_PAGE_MINUTE: '1000000' });
  servers.push(server);
  return server;
}

/** A server of the build whose clock reads `clockAt` now. */
const serverAt = (clockAt: number) => serverWithOffset(clockAt - Date.now());

async function text(url: string, init?: RequestInit): Promise<{ status: number; body: string; headers: Headers }> {
  const response = await fetch(url, init);
  return { status: response.status, body: await response.text(), headers: response.headers };
}

/** Where the article shows on the server at `base`: true where it is found. */
async function presence(base: string): Promise<Record<string, boolean>> {
  const [page, image, list, home, feed, sitemap, api] = await Promise.all(
    [`/news/${ID}/`, `/news/${ID}/og.png`, '/news/', '/', '/rss.xml', '/sitemap-0.xml', '/api/news'].map((path) => text(`${base}${path}`)),
  );
  const chat = await text(`${base}/api/chat`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: base },
    body: JSON.stringify({ messages: [{ role: 'user', content: `What is the ${WORD}?` }] }),
  });
  expect(chat.status).toBe(200);
  return {
    page: page!.status === 200 && page!.body.includes(HEADING),
    image: image!.status === 200,
    list: list!.body.includes(`/news/${ID}/`),
    home: home!.body.includes(`/news/${ID}/`),
    feed: feed!.body.includes(`/news/${ID}/`),
    sitemap: sitemap!.body.includes(`/news/${ID}/`),
    api: (JSON.parse(api!.body) as Array<{ id: string }>).some((article) => article.id === ID),
    assistant: chat.body.includes(WORD) || (chat.headers.get('link') ?? '').includes(`/news/${ID}`),
    search: await searchFinds(base),
  };
}

/** Whether the search page finds the article's word, in Chromium. */
async function searchFinds(base: string): Promise<boolean> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${base}/search/?q=${WORD}`);
    const status = page.getByRole('status');
    await expect.poll(() => status.textContent(), { timeout: 15_000 }).toMatch(/result/);
    return (await page.getByRole('link', { name: HEADING }).count()) === 1;
  } finally {
    await context.close();
  }
}

const everywhere = { page: true, image: true, list: true, home: true, feed: true, sitemap: true, api: true, assistant: true, search: true };
const nowhere = Object.fromEntries(Object.keys(everywhere).map((key) => [key, false]));

/** Every file below `dir`, pagefind's gzip-wrapped ones unwrapped, as text. */
function filesText(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...filesText(full));
    else if (/\.pf_(fragment|index|meta)$/.test(name)) out.push({ file: full, text: gunzipSync(readFileSync(full)).toString('latin1') });
    else if (!/\.(br|gz|png|ico|wasm|pagefind)$/.test(name)) out.push({ file: full, text: readFileSync(full, 'latin1') });
  }
  return out;
}

describe('before its instant', () => {
  it('is nowhere: not its page, picture, lists, home, feed, sitemap, /api/news, search or assistant', { timeout: 60_000 }, async () => {
    const server = await serverAt(AT - 86_400_000);
    expect(await presence(server.url)).toEqual(nowhere);
  });

  it('answers 404 at every address one could guess', async () => {
    const server = servers[0]!;
    const guesses = [`/news/${ID}`, `/news/${ID}/index.html`, `/news/${ID}/og.png`, `/scheduled/${AT}/news/${ID}/index.html`, `/scheduled-editions/${AT}/news/`, `/scheduled-editions/schedule.json`];
    for (const path of guesses) expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
  });

  it('has no trace in dist/client, which static hosts serve as it is', () => {
    const leaks = filesText(join(built.dist, 'client')).filter(({ text: body }) => body.includes(WORD) || body.includes(ID));
    expect(leaks.map(({ file }) => file)).toEqual([]);
  });
});

describe('after its instant', () => {
  it('is everywhere', { timeout: 60_000 }, async () => {
    const server = await serverAt(AT + 86_400_000);
    expect(await presence(server.url)).toEqual(everywhere);
  });
});

describe('across its instant, on a fleet of two', () => {
  it('switches both instances together, with no failed request', { timeout: 120_000 }, async () => {
    // One offset for both, as NTP-synchronised clocks give a real fleet.
    const offset = AT - (Date.now() + LEAD_MS);
    const fleet = await Promise.all([0, 1].map(() => serverWithOffset(offset)));
    const seen: Array<{ instance: number; path: string; status: number; shown: boolean }> = [];
    const shownEverywhere = () => fleet.every((_, instance) => seen.some((s) => s.instance === instance && s.shown && s.path === '/api/news'));
    // Sequential requests, alternating instances: each is decided after the one before it.
    while (!shownEverywhere()) {
      for (const [instance, server] of fleet.entries()) {
        for (const path of ['/api/news', `/news/${ID}/`]) {
          const answer = await text(`${server.url}${path}`);
          const shown = path === '/api/news' ? (JSON.parse(answer.body) as Array<{ id: string }>).some((a) => a.id === ID) : answer.status === 200;
          seen.push({ instance, path, status: answer.status, shown });
        }
      }
      // A short pause between rounds keeps the record small; the switch is found by polling, not timed.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(seen.filter((s) => s.path === '/api/news' && s.status !== 200)).toEqual([]);
    expect(seen.filter((s) => s.status !== 200 && s.status !== 404)).toEqual([]);
    // The old edition was seen by both before the switch...
    for (const instance of [0, 1]) expect(seen.some((s) => s.instance === instance && !s.shown)).toBe(true);
    // ...and once any answer showed the article, every later one from either instance did.
    const first = seen.findIndex((s) => s.shown);
    expect(seen.slice(first).filter((s) => !s.shown)).toEqual([]);
  });
});
