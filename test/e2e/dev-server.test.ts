/**
 * `astro dev` (npm run dev) serves every page and API with the production services
 * (src/app/dev-integration.ts): an editor previews /stats/, a developer calls the data API,
 * contact and chat, the probes answer JSON, and Vite's dependency scan parses every component.
 * The real dev server runs as a child process on a free port and stops cleanly on SIGTERM.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PATHS } from '../../src/lib/paths.ts';
import { freePort, spawnOwned, type OwnedProcess } from '../helpers/processes.ts';
import { readArticles } from './browser/news-content.ts';

const dir = mkdtempSync(join(tmpdir(), 'dev-server-'));
const databaseFile = join(dir, 'site.db');
let dev: OwnedProcess;
let base = '';
/** Everything the dev server wrote (the helper keeps only the last lines). */
let written = () => '';

/** Descendants of `pid` (Vite and Astro may start workers), read from procps. */
function descendantsOf(pid: number): number[] {
  const table = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!; // non-empty
    for (const [child, ppid] of table) if (ppid === parent) (found.push(child), queue.push(child));
  }
  return found;
}

async function call(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(30_000) });
  if (response.status >= 500) throw new Error(`${path} answered ${response.status}: ${await response.text()}\n${written()}`);
  return response;
}

/** `astro dev` as `npm run dev` runs it, with `env` (plus PATH and HOME). */
function spawnDev(env: Record<string, string>): OwnedProcess {
  // --ignore-lock: run in the foreground beside any dev server a developer has open (Astro
  // otherwise refuses, or backgrounds itself when it thinks an agent runs it).
  return spawnOwned(process.execPath, ['node_modules/astro/bin/astro.mjs', 'dev', '--ignore-lock'], {
    env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '/tmp', ASTRO_TELEMETRY_DISABLED: '1', ...env },
  });
}

/** `astro dev` on a free port, given as PORT and HOST like `npm start`'s, once it watches for changes. */
async function startDev(env: Record<string, string>): Promise<{ dev: OwnedProcess; base: string; written: () => string }> {
  const port = await freePort();
  const child = spawnDev({ PORT: String(port), HOST: '127.0.0.1', ...env });
  let all = '';
  const collect = (chunk: Buffer) => (all += chunk.toString('utf8'));
  child.child.stdout!.on('data', collect);
  child.child.stderr!.on('data', collect);
  await child.waitForLine(/watching for file changes/, 60_000);
  return { dev: child, base: `http://127.0.0.1:${port}`, written: () => all };
}

beforeAll(async () => {
  // Vite scans the components for dependencies only when it has no pre-bundle metadata (its
  // cache is fixed at node_modules/.vite); discard it, as `vite --force` would, so the scan runs.
  rmSync(resolve(import.meta.dirname, '../../node_modules/.vite/deps'), { recursive: true, force: true });
  const started = await startDev({ DATABASE_URL: databaseFile, JOBS_ENABLED: 'false' });
  ({ dev, base } = started);
  written = started.written;
}, 240_000);

afterAll(async () => {
  await dev?.stop('SIGTERM', 10_000);
  rmSync(dir, { recursive: true, force: true });
});

describe('the dev server', () => {
  it('listens on PORT and HOST, as npm start does', () => {
    expect(written()).toMatch(new RegExp(`Local +${base.replaceAll('.', '\\.')}/`));
  });

  it('renders every page and its scripts, the per-request stats page included', { timeout: 240_000 }, async () => {
    const news = (await (await call(PATHS.news)).json()) as Array<{ id: string }>;
    expect(news.length).toBeGreaterThan(0);
    for (const path of ['/', '/news/', `/news/${news[0]!.id}/`, '/contact/', `${PATHS.stats}/`, '/docs/api/']) {
      const page = await call(path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
      // As a browser would: serving a module waits for Vite's dependency scan to finish.
      for (const [, script] of (await page.text()).matchAll(/<script[^>]* src="(\/[^"]+)"/g)) {
        expect((await call(script!)).status, script).toBe(200);
      }
    }
  });

  it('lists the drafts on /news/ too, marked "Draft", for editors to preview', async () => {
    const drafts = readArticles().filter((article) => article.draft);
    expect(drafts.length).toBeGreaterThan(0);
    const html = await (await call('/news/')).text();
    const cards = html.match(/<article class="news-card"[\s\S]*?<\/article>/g) ?? [];
    for (const draft of drafts) {
      const card = cards.find((c) => c.includes(`href="/news/${draft.id}/"`));
      expect(card, draft.id).toBeDefined();
      expect(card, draft.id).toMatch(/<strong class="draft-badge"[^>]*>Draft<\/strong>/);
    }
    expect(cards.filter((c) => c.includes('draft-badge'))).toHaveLength(drafts.length);
  });

  it('answers the read APIs and the data API with JSON', async () => {
    const sellers = await call(PATHS.sellers);
    expect(sellers.status).toBe(200);
    expect(await sellers.json()).toHaveProperty('sellers');
    const data = await call(`${PATHS.data}?startDate=2026-10-01&endDate=2026-10-07`);
    expect(data.status).toBe(200);
    expect(await data.json()).toEqual({ status: 'Success', data: [] });
  });

  it('stores a contact submission in the configured database', async () => {
    const reply = await call(PATHS.contact, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ name: 'Ada Lovelace', work_email: 'ada@example.com', priority: 'standard', message: 'Hello from dev' }),
    });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toEqual({ success: true });
    const db = new Database(databaseFile, { readonly: true });
    try {
      expect(db.prepare("SELECT count(*) AS n FROM contact_submission WHERE message = 'Hello from dev'").get()).toEqual({ n: 1 });
    } finally {
      db.close();
    }
  });

  it('streams a chat answer to an allowed origin', async () => {
    const reply = await call(PATHS.chat, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'What is sellers.json?' }] }),
    });
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await reply.text()).toMatch(/sellers\.json/);
  });

  it('answers the liveness and readiness probes with JSON', async () => {
    const health = await call(PATHS.healthz);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', uptimeSeconds: expect.any(Number) });
    const ready = await call(PATHS.readyz);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'sqlite' });
  });

  it("parses every component in Vite's dependency scan", () => {
    expect(written()).not.toMatch(/PARSE_ERROR|Failed to run dependency scan/);
  });

  it('stops on SIGTERM through its own handler, leaving no process behind', async () => {
    const children = descendantsOf(dev.child.pid!); // spawned, so it has a pid
    await dev.stop('SIGTERM', 10_000);
    // Vite's handler closes the server and exits 128 + 15; a process the signal (or the helper's
    // SIGKILL after the grace period) ended would report the signal's name instead.
    expect(await dev.exited).toBe(143);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(children.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]);
    await expect(fetch(base, { signal: AbortSignal.timeout(2_000) })).rejects.toThrow();
  });
});

describe('a dev server with a bad PORT', () => {
  it('stops before listening with exit 78 and the one line npm start prints', async () => {
    const child = spawnDev({ PORT: '99999', DATABASE_URL: databaseFile });
    expect(await child.exited).toBe(78);
    expect(child.output()).toBe('Invalid configuration: PORT: must be a port number (0-65535) (got "99999"). See docs/operators.md, section "Configuration".');
  });
});

describe('a dev server with an unusable DATABASE_URL', () => {
  it('answers every request with the configuration error instead of a silent 500', async () => {
    const broken = await startDev({ DATABASE_URL: join(dir, 'missing', 'site.db') });
    try {
      const reply = await fetch(`${broken.base}/stats/`, { signal: AbortSignal.timeout(30_000) });
      expect(reply.status).toBe(500);
      expect(broken.written()).toContain(`Invalid configuration: DATABASE_URL: the directory ${join(dir, 'missing')} does not exist`);
    } finally {
      await broken.dev.stop('SIGTERM', 10_000);
    }
  });
});
