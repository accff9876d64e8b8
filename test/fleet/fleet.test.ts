/**
 * The fleet: nginx in front of two instances sharing one PostgreSQL and one Redis (the
 * run's, see test/global-setup.ts), checked through the proxy the way clients see it.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderNginx } from '../../deploy/render-nginx.ts';
import type { DbHandle } from '../../src/db/create-db.ts';
import { createMigratedDatabase, type MigratedDatabase } from '../helpers/postgres.ts';
import { freePort, spawnOwned, type OwnedProcess } from '../helpers/processes.ts';
import { SHARED_LIMITS_ENV, testRedisUrl, untilLimitsShared } from '../helpers/redis.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const NGINX = ['/usr/sbin/nginx', 'nginx'].find((bin) => spawnSync(bin, ['-v']).status === 0);
if (!NGINX) throw new Error('nginx is required for the fleet test (Debian package nginx-light; `bash test/system-deps.sh` installs it)');

async function waitFor(url: string, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not up yet
    }
    if (Date.now() > until) throw new Error(`${url} did not come up`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A cron expression (with seconds, UTC) that fires once, `secondsAhead` from now. */
function cronAt(secondsAhead: number): { expression: string; at: Date } {
  const at = new Date(Math.ceil((Date.now() + secondsAhead * 1000) / 1000) * 1000);
  return { expression: `${at.getUTCSeconds()} ${at.getUTCMinutes()} ${at.getUTCHours()} ${at.getUTCDate()} ${at.getUTCMonth() + 1} *`, at };
}

const DAY_QUOTA = 40;

describe('two instances behind nginx on PostgreSQL and Redis', () => {
  let pg: MigratedDatabase;
  let db: DbHandle;
  let a: RunningServer;
  let b: RunningServer;
  let nginx: OwnedProcess;
  let proxy: string;
  let tick: Date;

  beforeAll(async () => {
    // Migrated once before the fleet starts (as a deployment would); then the tick gets a day to do.
    pg = await createMigratedDatabase('fleet');
    db = pg.handle;
    const yesterday = new Date(Date.now() - 86_400_000);
    yesterday.setUTCHours(12, 0, 0, 0);
    await db.kysely
      .insertInto('event')
      .values([
        { id: 'fleet-1', occurred_at: yesterday.getTime(), kind: 'transaction', revenue_minor: 1234 },
        { id: 'fleet-2', occurred_at: yesterday.getTime() + 1, kind: 'impression', revenue_minor: 0 },
      ])
      .execute();

    const proxyPort = await freePort();
    proxy = `http://127.0.0.1:${proxyPort}`;
    const cron = cronAt(12);
    tick = cron.at;
    const env = {
      DATABASE_URL: pg.url,
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `fleet-${randomBytes(4).toString('hex')}:`,
      ...SHARED_LIMITS_ENV, // exact shared limits: no fallback on a loaded machine

      TRUST_PROXY: '127.0.0.1',
      SITE_URL: proxy,
      JOBS_ENABLED: 'true',
      STATS_CRON: cron.expression,
      RATE_LIMIT_DATA_DAY: String(DAY_QUOTA),
      RATE_LIMIT_DATA_MINUTE: '100000',
      RATE_LIMIT_CONTACT_HOUR: '100000',
      RATE_LIMIT_CONTACT_DAY: '100000',
      RATE_LIMIT_SITE_MINUTE: '100000',
    };
    [a, b] = await Promise.all([startServer(env), startServer(env)]);
    await Promise.all([untilLimitsShared(a), untilLimitsShared(b)]);

    const prefix = mkdtempSync(join(tmpdir(), 'fleet-nginx-'));
    const conf = join(prefix, 'nginx.conf');
    writeFileSync(conf, renderNginx({ listen: `127.0.0.1:${proxyPort}`, distClient: 'dist/client', upstreams: [a.url, b.url].map((u) => new URL(u).host), prefix }));
    nginx = spawnOwned(NGINX!, ['-p', `${prefix}/`, '-c', conf, '-g', 'daemon off;']);
    await waitFor(`${proxy}/healthz`);
  });

  afterAll(async () => {
    await Promise.all([nginx?.stop('SIGTERM'), a?.stop(), b?.stop()]);
    await pg?.drop();
  });

  it('serves pages from the build itself and the APIs through the instances', async () => {
    const page = await fetch(`${proxy}/contact/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('x-request-id')).toBeNull(); // nginx answered, no instance involved
    // What a scheduled article changes at its instant is served by the instances, by their clock.
    for (const path of ['/', '/news/', '/rss.xml', '/sitemap-0.xml', '/pagefind/pagefind-entry.json']) {
      const res = await fetch(`${proxy}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('x-request-id'), path).not.toBeNull();
    }
    const news = await fetch(`${proxy}/api/news`);
    expect(news.status).toBe(200);
    expect(news.headers.get('ratelimit-policy')).toBe('100000;w=60');
  });

  it('passes the per-request /stats page to the instances however it is spelled', async () => {
    for (const path of ['/stats', '/stats/', '/stats/?startDate=2026-01-01&endDate=2026-01-02']) {
      const res = await fetch(`${proxy}${path}`, { redirect: 'manual' });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(res.headers.get('x-request-id'), path).not.toBeNull(); // an instance rendered it
    }
  });

  it('limits a client to exactly its quota across both instances', async () => {
    const url = `${proxy}/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-02`;
    const statuses = await Promise.all(Array.from({ length: 160 }, async () => (await fetch(url)).status));
    expect(statuses.filter((s) => s !== 429)).toHaveLength(DAY_QUOTA);
    // Both instances served some of them: the limit really was shared.
    const served = (s: RunningServer) => s.output.filter((l) => l.includes('"path":"/api/v1/public/data"')).length;
    expect(served(a)).toBeGreaterThan(0);
    expect(served(b)).toBeGreaterThan(0);
  });

  it('stores 200 concurrent contact submissions exactly once each', async () => {
    const run = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${proxy}/api/contact`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'idempotency-key': `${run}-${i}` },
          body: JSON.stringify({ name: `Fleet ${run} ${i}`, work_email: `f${i}@example.com`, priority: 'standard' }),
        }),
      ),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(200).fill(200));
    const rows = await db.kysely.selectFrom('contact_submission').select('name').where('name', 'like', `Fleet ${run} %`).execute();
    expect(rows).toHaveLength(200);
    expect(new Set(rows.map((r) => r.name)).size).toBe(200);
  });

  it('streams a chat reply through the proxy chunk by chunk', async () => {
    const res = await fetch(`${proxy}/api/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: proxy },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'What is sellers.json?' }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    const reader = res.body!.getReader();
    const arrivals: number[] = [];
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push(Date.now());
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('sellers.json');
    expect(arrivals.length).toBeGreaterThan(2);
    // Unbuffered: the first bytes arrived well before the last.
    expect(arrivals.at(-1)! - arrivals[0]!).toBeGreaterThan(20);
  });

  it('runs one materialization tick once across the fleet', async () => {
    // Each instance reports its tick once it has run or skipped it. On a loaded machine that can
    // take seconds past the tick, so wait for both reports (up to 90 s after it: a safety net, not a bound), then 1 s more
    // for a wrong third one.
    const tickLines = () => [...a.output, ...b.output].filter((l) => l.includes('"msg":"stats tick'));
    while (tickLines().length < 2 && Date.now() < tick.getTime() + 90_000) await new Promise((r) => setTimeout(r, 100));
    await new Promise((r) => setTimeout(r, 1_000));
    const lines = tickLines();
    expect(lines.filter((l) => l.includes('stats tick materialized'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('stats tick skipped'))).toHaveLength(1);
    const day = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const row = await db.kysely.selectFrom('daily_stat').selectAll().where('day', '=', day).executeTakeFirst();
    expect(row).toMatchObject({ txn_count: 1, impr_count: 1, revenue_minor: 1234 });
  });

  it('loses no acknowledged submission when an instance is killed, and keeps answering', async () => {
    const run = randomUUID();
    const submit = (i: number) =>
      fetch(`${proxy}/api/contact`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: `Kill ${run} ${i}`, work_email: `k${i}@example.com`, priority: 'high' }),
      }).then(
        (r) => ({ i, status: r.status }),
        () => ({ i, status: 0 }),
      );
    const inFlight = Array.from({ length: 150 }, (_, i) => submit(i));
    setTimeout(() => a.child.kill('SIGKILL'), 5);
    const results = await Promise.all(inFlight);
    const acknowledged = results.filter((r) => r.status === 200).map((r) => `Kill ${run} ${r.i}`);
    expect(acknowledged.length).toBeGreaterThan(0);
    const stored = new Set((await db.kysely.selectFrom('contact_submission').select('name').where('name', 'like', `Kill ${run} %`).execute()).map((r) => r.name));
    for (const name of acknowledged) expect(stored.has(name), name).toBe(true);

    const after = await Promise.all(Array.from({ length: 20 }, (_, i) => submit(1000 + i)));
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(200));
  });
});
