/**
 * X-Data-Settled-Through and X-Data-Missing-Days from the real server (`node src/app/main.ts`)
 * on SQLite and PostgreSQL: right after materializing, on 304s, on answers from the edge's
 * response cache, and after the server's own materializer has purged that cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materialize } from '../../../../src/features/stats/materialize.server.ts';
import { insertEvents } from '../../../../src/features/stats/stats.server.ts';
import type { NewEvent } from '../../../../src/db/schema.ts';
import { dayOfInstant, formatDay, startOfDayMs } from '../../../../src/lib/calendar.ts';
import { PATHS } from '../../../../src/lib/paths.ts';
import { startServer, type RunningServer } from '../../../helpers/server.ts';
import { ENGINES, openTestDb, type TestDb } from '../../../helpers/contact-fixtures.ts';

const TODAY = dayOfInstant(Date.now());
const day = (offset: number) => formatDay(TODAY + offset);
/** An impression at noon of the day `offset` days from today. */
const impression = (id: string, offset: number): NewEvent => ({ id, occurred_at: startOfDayMs(TODAY + offset) + 43_200_000, kind: 'impression', revenue_minor: 0 });

interface Answer {
  status: number;
  days: string[];
  impressions: number[];
  settled: string | null;
  missing: string | null;
  etag: string | null;
  exposed: string | null;
}

async function get(server: RunningServer, from: string, to: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(`${server.url}${PATHS.data}?startDate=${from}&endDate=${to}`, { headers });
  const body = response.status === 200 ? ((await response.json()) as { data: Array<{ date: string; impr_count: number }> }) : { data: [] };
  await response.body?.cancel().catch(() => {});
  return {
    status: response.status,
    days: body.data.map((record) => record.date),
    impressions: body.data.map((record) => record.impr_count),
    settled: response.headers.get('x-data-settled-through'),
    missing: response.headers.get('x-data-missing-days'),
    etag: response.headers.get('etag'),
    exposed: response.headers.get('access-control-expose-headers'),
  };
}

describe.each(ENGINES)('settled and missing days from the server on %s', (engine) => {
  let db: TestDb;
  const servers: RunningServer[] = [];
  const boot = async (env: Record<string, string>) => {
    const server = await startServer({ DATABASE_URL: db.url, ...env });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    db = await openTestDb(engine);
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db?.dispose();
  });

  it('names today minus 4 as settled, lists the days without a record, and replays both from its cache and on 304', async () => {
    const events = Array.from({ length: 10 }, (_, i) => impression(`a${i}`, -10 + i));
    await db.handle.kysely.transaction().execute((trx) => insertEvents(trx, events));
    expect(await materialize({ db: db.handle }, day(-10), day(-6))).toEqual({ days: 5 });
    const server = await boot({ JOBS_ENABLED: 'false' });

    const first = await get(server, day(-12), day(1));
    expect(first).toMatchObject({ status: 200, days: [day(-10), day(-9), day(-8), day(-7), day(-6)], settled: day(-4) });
    expect(first.missing).toBe(`${day(-12)}/${day(-11)}, ${day(-5)}/${day(1)}`);
    // A page on another origin may read them (CORS).
    expect(first.exposed).toContain('X-Data-Settled-Through, X-Data-Missing-Days');

    const notModified = await get(server, day(-12), day(1), { 'if-none-match': first.etag! });
    expect(notModified).toMatchObject({ status: 304, settled: day(-4), missing: first.missing, etag: first.etag });

    // Materialized behind the server's back (another process: no purge reaches it). The cached
    // answer keeps its headers with its body, so the two still agree...
    expect(await materialize({ db: db.handle }, day(-5), day(-1))).toEqual({ days: 5 });
    expect(await get(server, day(-12), day(1))).toEqual(first);
    // ...and a range not cached yet shows the new days at once.
    const fresh = await get(server, day(-12), day(0));
    expect(fresh.days).toHaveLength(10);
    expect(fresh).toMatchObject({ settled: day(-4), missing: `${day(-12)}/${day(-11)}, ${day(0)}` });
    const complete = await get(server, day(-10), day(-1));
    expect(complete).toMatchObject({ status: 200, settled: day(-4), missing: null });
  });

  it('drops a cached answer when its own materializer rewrites the days, and serves the new one with the right headers', async () => {
    await db.handle.kysely.deleteFrom('event').execute();
    await db.handle.kysely.deleteFrom('daily_stat').execute();
    await db.handle.kysely.transaction().execute((trx) => insertEvents(trx, [impression('b1', -3), impression('b2', -2), impression('b3', -1)]));
    // Written "tomorrow": every tick of this test finds the last three days already done and
    // skips them, until the test makes one of them look old.
    const tomorrow = () => Date.now() + 86_400_000;
    expect(await materialize({ db: db.handle, now: tomorrow }, day(-3), day(-1))).toEqual({ days: 3 });
    // A tick every second (node-cron's optional seconds field).
    const server = await boot({ JOBS_ENABLED: 'true', STATS_CRON: '* * * * * *' });

    const before = await get(server, day(-3), day(-1));
    expect(before).toMatchObject({ status: 200, impressions: [1, 1, 1], settled: day(-4), missing: null });

    // A late event arrives, and yesterday's row looks written before this minute: the next tick
    // re-materializes the three days and purges the data responses of this instance.
    await db.handle.kysely.transaction().execute((trx) => insertEvents(trx, [impression('late', -1)]));
    await db.handle.kysely.updateTable('daily_stat').set({ materialized_at: 0 }).where('day', '=', day(-1)).execute();

    // The cached answer would live 60 s (max-age=60: recent days); the purge ends it long before.
    await expect.poll(async () => (await get(server, day(-3), day(-1))).impressions, { timeout: 90_000, interval: 250 }).toEqual([1, 1, 2]);
    const after = await get(server, day(-3), day(0));
    expect(after).toMatchObject({ status: 200, impressions: [1, 1, 2], settled: day(-4), missing: day(0) });
    expect(server.output.some((line) => line.includes('stats tick materialized'))).toBe(true);
  });
});
