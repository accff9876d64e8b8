/**
 * The community data path on real databases, SQLite and PostgreSQL alike: events in (import),
 * days materialized (jobs), days served (handler), and the scheduler's guarantees.
 */
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runStatsTick, startJobs } from '../../../../src/app/jobs/schedule.ts';
import { loadConfig } from '../../../../src/app/config.ts';
import { createDb, type DbHandle } from '../../../../src/db/create-db.ts';
import { migrateToLatest } from '../../../../src/db/migrations/index.ts';
import type { NewEvent } from '../../../../src/db/schema.ts';
import { dataEndpoint } from '../../../../src/features/stats/data.endpoint.ts';
import { callEndpoint } from '../../../helpers/endpoint.ts';
import { PATHS } from '../../../../src/lib/paths.ts';

const DATA_PATH = PATHS.data;
import { DataResponse } from '../../../../src/features/stats/data-record.ts';
import { importEvents, importEventsFile } from '../../../../src/features/stats/event-import.server.ts';
import { STATS_LOCK_KEY, materialize, materializeMissing, missingDays, withStatsLock } from '../../../../src/features/stats/materialize.server.ts';
import { insertEvents } from '../../../../src/features/stats/stats.server.ts';
import type { Services } from '../../../../src/app/services.ts';
import { createTempDatabase, type TempDatabase } from '../../../helpers/postgres.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';
import { NO_METER } from '../../../../src/lib/meter.ts';

/** "Now" for every test: 2026-03-20 12:00 UTC. Yesterday is 03-19; days up to 03-16 are settled. */
const NOW = Date.UTC(2026, 2, 20, 12);
const now = () => NOW;
const at = (iso: string) => Date.parse(iso);
const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/${name}`, import.meta.url));

const impression = (id: string, iso: string): NewEvent => ({ id, occurred_at: at(iso), kind: 'impression', revenue_minor: 0 });
const transaction = (id: string, iso: string, cents: number): NewEvent => ({ id, occurred_at: at(iso), kind: 'transaction', revenue_minor: cents });

interface Database {
  handle: DbHandle;
  purged: string[];
  services: Services;
  close(): Promise<void>;
}

async function openDatabase(engine: 'sqlite' | 'postgres'): Promise<Database> {
  let temp: TempDatabase | undefined;
  let url = tempSqliteUrl();
  if (engine === 'postgres') {
    temp = await createTempDatabase('stats');
    url = temp.url;
  }
  const handle = createDb(url);
  const migration = await migrateToLatest(handle.kysely, handle.engine);
  expect(migration.error).toBeUndefined();
  const purged: string[] = [];
  const services: Services = {
    config: loadConfig({ NODE_ENV: 'test' }),
    db: handle,
    log: pino({ level: 'silent' }),
    purgeCache: (prefix) => purged.push(prefix),
        meter: NO_METER,
    assistantIndex: () => {
      throw new Error('no assistant index in this test');
    },
  };
  return {
    handle,
    purged,
    services,
    async close() {
      await handle.close();
      await temp?.drop();
    },
  };
}

describe.each(['sqlite', 'postgres'] as const)('community data on %s', (engine) => {
  let database: Database;
  let handle: DbHandle;

  const addEvents = (...events: NewEvent[]) => handle.kysely.transaction().execute((trx) => insertEvents(trx, events));
  const stats = () =>
    handle.kysely.selectFrom('daily_stat').select(['day', 'txn_count', 'impr_count', 'revenue_minor']).orderBy('day').execute()
      .then((rows) => rows.map((r) => ({ ...r, txn_count: Number(r.txn_count), impr_count: Number(r.impr_count), revenue_minor: Number(r.revenue_minor) })));
  const get = (query: string, headers: Record<string, string> = {}) =>
    callEndpoint(dataEndpoint, new Request(`http://site.test${DATA_PATH}?${query}`, { headers }), { ...database.services, now });
  const json = async (response: Response) => DataResponse.parse(await response.json());

  beforeAll(async () => {
    database = await openDatabase(engine);
    handle = database.handle;
    expect(handle.engine).toBe(engine);
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await handle.kysely.deleteFrom('event').execute();
    await handle.kysely.deleteFrom('daily_stat').execute();
    database.purged.length = 0;
  });

  describe('materialization', () => {
    it('writes one row per day of the range, zeros for days without events', async () => {
      await addEvents(
        impression('a', '2026-03-01T08:00:00Z'),
        impression('b', '2026-03-01T09:00:00Z'),
        transaction('c', '2026-03-01T10:00:00Z', 1_999),
        transaction('d', '2026-03-03T10:00:00Z', 1),
      );
      expect(await materialize({ db: handle, now }, '2026-03-01', '2026-03-04')).toEqual({ days: 4 });
      expect(await stats()).toEqual([
        { day: '2026-03-01', txn_count: 1, impr_count: 2, revenue_minor: 1_999 },
        { day: '2026-03-02', txn_count: 0, impr_count: 0, revenue_minor: 0 },
        { day: '2026-03-03', txn_count: 1, impr_count: 0, revenue_minor: 1 },
        { day: '2026-03-04', txn_count: 0, impr_count: 0, revenue_minor: 0 },
      ]);
    });

    it('buckets by UTC day: 23:59:59.999 belongs to the day, 00:00:00.000 to the next', async () => {
      await addEvents(
        transaction('last', '2026-03-01T23:59:59.999Z', 100),
        transaction('first', '2026-03-02T00:00:00.000Z', 200),
        impression('offset', '2026-03-02T00:30:00+01:00'), // 2026-03-01T23:30Z
      );
      await materialize({ db: handle, now }, '2026-03-01', '2026-03-02');
      expect(await stats()).toEqual([
        { day: '2026-03-01', txn_count: 1, impr_count: 1, revenue_minor: 100 },
        { day: '2026-03-02', txn_count: 1, impr_count: 0, revenue_minor: 200 },
      ]);
    });

    it('gives the same rows when run again (idempotent)', async () => {
      await addEvents(impression('a', '2026-03-05T08:00:00Z'), transaction('b', '2026-03-06T08:00:00Z', 5));
      await materialize({ db: handle, now }, '2026-03-04', '2026-03-07');
      const first = await stats();
      expect(await materialize({ db: handle, now: () => NOW + 1 }, '2026-03-04', '2026-03-07')).toEqual({ days: 4 });
      expect(await stats()).toEqual(first);
      const stamps = await handle.kysely.selectFrom('daily_stat').select('materialized_at').execute();
      expect(stamps.map((row) => Number(row.materialized_at))).toEqual([NOW + 1, NOW + 1, NOW + 1, NOW + 1]);
    });

    it('picks up late events when a day is materialized again', async () => {
      await addEvents(transaction('a', '2026-03-10T08:00:00Z', 10));
      await materialize({ db: handle, now }, '2026-03-10', '2026-03-10');
      await addEvents(transaction('late', '2026-03-10T09:00:00Z', 20), impression('late-i', '2026-03-10T23:00:00Z'));
      await materialize({ db: handle, now }, '2026-03-10', '2026-03-10');
      expect(await stats()).toEqual([{ day: '2026-03-10', txn_count: 2, impr_count: 1, revenue_minor: 30 }]);
    });

    it('names the settled days whose figures a run changed, old and new, and nothing for a rerun with the same figures or for unsettled days', async () => {
      // Settled through 03-16 (NOW is 03-20): 03-15 and 03-16 are final, 03-17 is not.
      await addEvents(transaction('a', '2026-03-15T08:00:00Z', 1_000), transaction('b', '2026-03-16T08:00:00Z', 500), transaction('c', '2026-03-17T08:00:00Z', 1));
      expect(await materialize({ db: handle, now }, '2026-03-14', '2026-03-17')).toEqual({ days: 4 });
      // A late import touching a final day (03-15) and a recent one (03-17); 03-16 unchanged.
      await addEvents(transaction('late', '2026-03-15T09:00:00Z', 250), impression('late-i', '2026-03-15T10:00:00Z'), transaction('d', '2026-03-17T09:00:00Z', 1));
      const logged: Array<{ msg: string; day?: string }> = [];
      const log = pino({ level: 'info' }, { write: (line: string) => logged.push(JSON.parse(line) as { msg: string }) });
      const restated = { day: '2026-03-15', before: { txn_count: 1, impr_count: 0, revenue_minor: 1_000 }, after: { txn_count: 2, impr_count: 1, revenue_minor: 1_250 } };
      // Batches of two: the second holds a settled day (03-16) and an unsettled one (03-17).
      expect(await materialize({ db: handle, now, log }, '2026-03-14', '2026-03-17', { batchDays: 2 })).toEqual({ days: 4, restated: [restated] });
      expect(logged.map(({ msg, day }) => [msg, day])).toEqual([['settled day restated', '2026-03-15']]);
      expect(await materialize({ db: handle, now }, '2026-03-14', '2026-03-17')).toEqual({ days: 4 });
    });

    it('commits batch by batch and reports each batch and the progress', async () => {
      const committed: string[][] = [];
      const progress: Array<[number, number]> = [];
      const result = await materialize(
        { db: handle, now, onCommit: (days) => committed.push(days) },
        '2026-02-27',
        '2026-03-03',
        { batchDays: 2, onProgress: (done, total) => progress.push([done, total]) },
      );
      expect(result).toEqual({ days: 5 });
      expect(committed).toEqual([['2026-02-27', '2026-02-28'], ['2026-03-01', '2026-03-02'], ['2026-03-03']]);
      expect(progress).toEqual([[2, 5], [4, 5], [5, 5]]);
    });

    it('returns an error instead of throwing for a bad range', async () => {
      expect(await materialize({ db: handle }, '2026-02-29', '2026-03-01')).toEqual({ days: 0, error: new RangeError('from: "2026-02-29" is not a YYYY-MM-DD calendar date') });
      expect(await materialize({ db: handle }, '2026-03-02', '2026-03-01')).toEqual({ days: 0, error: new RangeError('to (2026-03-01) is before from (2026-03-02)') });
      expect(await stats()).toEqual([]);
    });

    it('finds every complete day since the earliest event that is not materialized, and fills them', async () => {
      expect(await missingDays(handle.kysely, NOW)).toEqual([]);
      await addEvents(impression('a', '2026-03-14T10:00:00Z'), impression('today', '2026-03-20T01:00:00Z'));
      await materialize({ db: handle, now }, '2026-03-16', '2026-03-17');
      expect(await missingDays(handle.kysely, NOW)).toEqual(['2026-03-14', '2026-03-15', '2026-03-18', '2026-03-19']);
      const committed: string[][] = [];
      expect(await materializeMissing({ db: handle, now, onCommit: (days) => committed.push(days) })).toEqual({ days: 4 });
      expect(committed).toEqual([['2026-03-14', '2026-03-15'], ['2026-03-18', '2026-03-19']]);
      expect(await missingDays(handle.kysely, NOW)).toEqual([]);
      expect((await stats()).map((row) => row.day)).toEqual(['2026-03-14', '2026-03-15', '2026-03-16', '2026-03-17', '2026-03-18', '2026-03-19']);
    });
  });

  describe('GET /api/v1/public/data', () => {
    it('answers the materialized days of the range in ascending order, without the missing ones', async () => {
      await addEvents(
        transaction('a', '2026-03-03T10:00:00Z', 1_234_567),
        impression('b', '2026-03-03T11:00:00Z'),
        impression('c', '2026-03-01T11:00:00Z'),
      );
      // 03-02 left out on purpose: not materialized, so absent rather than zero.
      await materialize({ db: handle, now }, '2026-03-03', '2026-03-04');
      await materialize({ db: handle, now }, '2026-03-01', '2026-03-01');
      const response = await get('startDate=2026-03-01&endDate=2026-03-05');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.text()).toBe(
        '{"status":"Success","data":[' +
          '{"date":"2026-03-01","txn_count":0,"impr_count":1,"service_revenue":0},' +
          '{"date":"2026-03-03","txn_count":1,"impr_count":1,"service_revenue":12345.67},' +
          '{"date":"2026-03-04","txn_count":0,"impr_count":0,"service_revenue":0}]}',
      );
    });

    it('names the last settled day and lists the requested days that have no record', async () => {
      await addEvents(impression('a', '2026-03-12T10:00:00Z'));
      await materialize({ db: handle, now }, '2026-03-12', '2026-03-14');
      await materialize({ db: handle, now }, '2026-03-17', '2026-03-19');
      const response = await get('startDate=2026-03-10&endDate=2026-03-22');
      expect(response.status).toBe(200);
      expect((await json(response)).data.map((record) => record.date)).toEqual(['2026-03-12', '2026-03-13', '2026-03-14', '2026-03-17', '2026-03-18', '2026-03-19']);
      expect(response.headers.get('x-data-settled-through')).toBe('2026-03-16');
      expect(response.headers.get('x-data-missing-days')).toBe('2026-03-10/2026-03-11, 2026-03-15/2026-03-16, 2026-03-20/2026-03-22');

      const complete = await get('startDate=2026-03-12&endDate=2026-03-14');
      expect(complete.headers.get('x-data-settled-through')).toBe('2026-03-16');
      expect(complete.headers.has('x-data-missing-days')).toBe(false);
      // Once materialized, a day leaves the list.
      await materialize({ db: handle, now }, '2026-03-15', '2026-03-16');
      expect((await get('startDate=2026-03-10&endDate=2026-03-22')).headers.get('x-data-missing-days')).toBe('2026-03-10/2026-03-11, 2026-03-20/2026-03-22');
    });

    it('sends no settlement headers with an error', async () => {
      const response = await get('startDate=2026-03-10');
      expect(response.status).toBe(400);
      expect(response.headers.has('x-data-settled-through')).toBe(false);
      expect(response.headers.has('x-data-missing-days')).toBe(false);
    });

    it('serves revenue exact to the cent: 0.10 + 0.20 is 0.3', async () => {
      await addEvents(transaction('a', '2026-03-05T10:00:00Z', 10), transaction('b', '2026-03-05T11:00:00Z', 20));
      await materialize({ db: handle, now }, '2026-03-05', '2026-03-05');
      const response = await get('startDate=2026-03-05&endDate=2026-03-05');
      const text = await response.text();
      expect(text).toContain('"service_revenue":0.3}');
      expect(text).not.toContain('0.30000000000000004');
    });

    it('answers an empty list for a valid range with nothing materialized', async () => {
      const response = await get('startDate=2026-03-20&endDate=2026-04-19');
      expect(response.status).toBe(200);
      expect(await json(response)).toEqual({ status: 'Success', data: [] });
      expect(response.headers.get('cache-control')).toBe('public, max-age=60');
    });

    it('lets settled, fully materialized ranges be cached for a day and anything else for a minute', async () => {
      await materialize({ db: handle, now }, '2026-03-10', '2026-03-19');
      const settled = await get('startDate=2026-03-10&endDate=2026-03-16');
      // Noon: shared caches keep it until 00:00 UTC, when X-Data-Settled-Through moves.
      expect(settled.headers.get('cache-control')).toBe('public, max-age=86400, s-maxage=43200');
      const recent = await get('startDate=2026-03-10&endDate=2026-03-17');
      expect(recent.headers.get('cache-control')).toBe('public, max-age=60');
      const gap = await get('startDate=2026-03-09&endDate=2026-03-16');
      expect(gap.headers.get('cache-control')).toBe('public, max-age=60');
    });

    it('tags the body with a strong ETag and answers 304 to a matching If-None-Match', async () => {
      await addEvents(impression('a', '2026-03-05T10:00:00Z'));
      await materialize({ db: handle, now }, '2026-03-05', '2026-03-06');
      const first = await get('startDate=2026-03-05&endDate=2026-03-06');
      const etag = first.headers.get('etag');
      expect(etag).toMatch(/^"[\w-]{27}"$/);
      const again = await get('startDate=2026-03-05&endDate=2026-03-06', { 'if-none-match': `"other", ${etag}` });
      expect(again.status).toBe(304);
      expect(await again.text()).toBe('');
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.headers.get('cache-control')).toBe('public, max-age=86400, s-maxage=43200');
      // A 304 updates what the client stored (RFC 9111 section 4.3.4): the settlement headers too.
      expect(again.headers.get('x-data-settled-through')).toBe('2026-03-16');
      expect(again.headers.get('x-data-missing-days')).toBeNull();

      // A late event changes the day, so the old tag no longer matches.
      await addEvents(impression('late', '2026-03-05T11:00:00Z'));
      await materialize({ db: handle, now }, '2026-03-05', '2026-03-05');
      const changed = await get('startDate=2026-03-05&endDate=2026-03-06', { 'if-none-match': etag! });
      expect(changed.status).toBe(200);
      expect(changed.headers.get('etag')).not.toBe(etag);
      expect((await json(changed)).data[0]?.impr_count).toBe(2);
    });

    it('refuses an invalid range with 400 {code: SVC1005, message} and no caching', async () => {
      const response = await get('startDate=2026-01-01&endDate=2026-02-01');
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(await response.json()).toMatchInlineSnapshot(`
        {
          "code": "SVC1005",
          "message": "the range 2026-01-01 to 2026-02-01 covers 32 days; at most 31 are allowed (endDate at the latest 2026-01-31)",
        }
      `);
    });

    it('refuses missing, repeated and impossible dates with a message naming the rule', async () => {
      const message = async (query: string) => ((await (await get(query)).json()) as { message: string }).message;
      expect(await message('endDate=2026-03-01')).toMatchInlineSnapshot(`"startDate is required: give the first day of the range as YYYY-MM-DD"`);
      expect(await message('startDate=2026-03-01&startDate=2026-03-02&endDate=2026-03-03')).toMatchInlineSnapshot(`"startDate was given 2 times: give it once"`);
      expect(await message('startDate=2026-02-29&endDate=2026-03-03')).toMatchInlineSnapshot(`"startDate "2026-02-29" is not a calendar date"`);
      expect(await message('startDate=2026-03-03&endDate=2026-03-02')).toMatchInlineSnapshot(`"endDate 2026-03-02 is before startDate 2026-03-03"`);
    });

    it('refuses methods other than GET and HEAD', async () => {
      const response = await callEndpoint(dataEndpoint, new Request(`http://site.test${DATA_PATH}?startDate=2026-03-01&endDate=2026-03-01`, { method: 'POST' }), database.services);
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
    });
  });

  describe('import', () => {
    it('imports NDJSON, reports bad lines by number and materializes exact sums', async () => {
      const result = await importEventsFile(handle.kysely, fixture('events-sample.ndjson'));
      expect(result).toEqual({
        format: 'ndjson',
        records: 9,
        valid: 5,
        inserted: 4,
        duplicates: 1,
        bad: 4,
        span: { first: at('2026-03-01T00:00:00Z'), last: at('2026-03-02T00:00:00Z') },
        badLines: [
          { line: 5, reason: expect.stringMatching(/^not valid JSON/) },
          { line: 6, reason: 'revenue: 1.999 has more than 2 decimals' },
          { line: 7, reason: 'occurred_at: 2026-02-29 is not a calendar date' },
          { line: 8, reason: 'kind: must be transaction or impression, got "click"' },
        ],
      });
      await materialize({ db: handle, now }, '2026-03-01', '2026-03-02');
      expect(await stats()).toEqual([
        { day: '2026-03-01', txn_count: 1, impr_count: 1, revenue_minor: 10 },
        { day: '2026-03-02', txn_count: 1, impr_count: 1, revenue_minor: 20 },
      ]);
    });

    it('imports CSV with a header, reporting bad rows by line', async () => {
      const bad: Array<{ line: number; reason: string }> = [];
      const result = await importEventsFile(handle.kysely, fixture('events-sample.csv'), { onBadLine: (line) => bad.push(line) });
      expect(result).toMatchObject({ format: 'csv', records: 8, valid: 4, inserted: 4, duplicates: 0, bad: 4 });
      expect(bad).toEqual(result.badLines);
      expect(bad).toMatchInlineSnapshot(`
        [
          {
            "line": 5,
            "reason": "revenue: required for a transaction",
          },
          {
            "line": 6,
            "reason": "revenue: an impression carries no revenue (leave it empty or 0)",
          },
          {
            "line": 8,
            "reason": "revenue: "12,345.67" is not a decimal amount such as 12.34",
          },
          {
            "line": 9,
            "reason": "occurred_at: "not-a-time" is neither an ISO-8601 instant with offset (2026-01-31T23:59:59.999Z) nor epoch milliseconds",
          },
        ]
      `);
      await materialize({ db: handle, now }, '2026-03-01', '2026-03-02');
      const body = await json(await get('startDate=2026-03-01&endDate=2026-03-02'));
      expect(body.data).toEqual([
        { date: '2026-03-01', txn_count: 1, impr_count: 1, service_revenue: 0.1 },
        { date: '2026-03-02', txn_count: 2, impr_count: 0, service_revenue: 12345.87 },
      ]);
    });

    it('inserts nothing new when the same file is imported again', async () => {
      const first = await importEventsFile(handle.kysely, fixture('events-sample.csv'));
      const second = await importEventsFile(handle.kysely, fixture('events-sample.csv'));
      expect(first.inserted).toBe(4);
      expect(second).toMatchObject({ records: 8, valid: 4, inserted: 0, duplicates: 4, bad: 4 });
      const count = await handle.kysely.selectFrom('event').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(4);
    });

    it('commits in batches and reports progress as it goes', async () => {
      const lines = Array.from({ length: 25 }, (_, i) => JSON.stringify({ id: `b-${i}`, occurred_at: at('2026-03-01T00:00:00Z') + i, kind: 'impression' }));
      const progress: number[] = [];
      const result = await importEvents(handle.kysely, Readable.from([lines.join('\n')]), 'ndjson', { batchSize: 10, onProgress: (n) => progress.push(n) });
      expect(result).toMatchObject({ records: 25, inserted: 25, bad: 0 });
      expect(progress).toHaveLength(3);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));
    });

    it('refuses a CSV whose header lacks a required column, without importing anything', async () => {
      const result = await importEvents(handle.kysely, Readable.from(['when,kind\n2026-03-01T00:00:00Z,impression\n']), 'csv');
      expect(result.error?.message).toMatchInlineSnapshot(`"the CSV header must name the columns id, occurred_at, kind and revenue; missing id, occurred_at (header: when,kind)"`);
      expect(result.inserted).toBe(0);
    });

    it('reports a file it cannot open as an error, not an exception', async () => {
      const result = await importEventsFile(handle.kysely, fixture('no-such-file.ndjson'));
      expect(result.error?.message).toMatch(/ENOENT/);
    });
  });

  describe('schedule', () => {
    it('materializes the last three complete days on a tick, once per tick', async () => {
      await addEvents(impression('a', '2026-03-19T23:59:59.999Z'), impression('b', '2026-03-20T00:00:00Z'));
      const tickMs = Date.UTC(2026, 2, 20, 0, 5);
      const deps = { db: handle, now: () => tickMs + 10, onCommit: () => database.services.purgeCache(DATA_PATH) };
      expect(await runStatsTick(deps, tickMs)).toEqual({ ran: true, from: '2026-03-17', to: '2026-03-19', result: { days: 3 } });
      expect(await stats()).toEqual([
        { day: '2026-03-17', txn_count: 0, impr_count: 0, revenue_minor: 0 },
        { day: '2026-03-18', txn_count: 0, impr_count: 0, revenue_minor: 0 },
        { day: '2026-03-19', txn_count: 0, impr_count: 1, revenue_minor: 0 },
      ]);
      expect(database.purged).toEqual([DATA_PATH]);
      // Another instance arriving late for the same tick finds it done.
      expect(await runStatsTick(deps, tickMs)).toEqual({ ran: false, reason: 'already-done', from: '2026-03-17', to: '2026-03-19' });
      // The next day's tick runs again.
      expect(await runStatsTick({ ...deps, now: () => tickMs + 86_400_000 }, tickMs + 86_400_000)).toMatchObject({ ran: true, from: '2026-03-18', to: '2026-03-20' });
    });

    it('catches up missing days on start, purges the data cache, and stops cleanly', async () => {
      await addEvents(impression('a', '2026-03-15T10:00:00Z'));
      const jobs = startJobs({ services: database.services, now });
      await jobs.ready;
      expect((await stats()).map((row) => row.day)).toEqual(['2026-03-15', '2026-03-16', '2026-03-17', '2026-03-18', '2026-03-19']);
      expect(database.purged.length).toBeGreaterThan(0);
      expect(new Set(database.purged)).toEqual(new Set([DATA_PATH, '/stats']));
      await expect(jobs.stop()).resolves.toBeUndefined();
    });

    it('runs the tick on the STATS_CRON schedule (UTC) through node-cron', async () => {
      // Every second (node-cron's optional seconds field), so the test sees a real tick quickly.
      const services = { ...database.services, config: loadConfig({ STATS_CRON: '* * * * * *' }) };
      const jobs = startJobs({ services, now });
      try {
        await jobs.ready;
        expect(await stats()).toEqual([]); // no events: nothing to catch up
        await expect.poll(async () => (await stats()).map((row) => row.day), { timeout: 60_000 }).toEqual(['2026-03-17', '2026-03-18', '2026-03-19']);
        expect(database.purged).toContain(DATA_PATH);
      } finally {
        await jobs.stop();
      }
    });

    it('refuses an invalid STATS_CRON at start, naming the variable', () => {
      expect(() => loadConfig({ STATS_CRON: '61 * * * *' })).toThrow(/STATS_CRON: must be a node-cron expression/);
      // A configuration built in code skips loadConfig; startJobs checks again.
      const services = { ...database.services, config: { ...loadConfig({}), STATS_CRON: '61 * * * *' } };
      expect(() => startJobs({ services })).toThrowErrorMatchingInlineSnapshot(`[Error: STATS_CRON: "61 * * * *" is not a valid cron expression (node-cron syntax, evaluated in UTC), e.g. "5 0 * * *"]`);
    });

    it('starts nothing when JOBS_ENABLED is false', async () => {
      await addEvents(impression('a', '2026-03-15T10:00:00Z'));
      const jobs = startJobs({ services: { ...database.services, config: loadConfig({ JOBS_ENABLED: 'false' }) }, now });
      await jobs.ready;
      await jobs.stop();
      expect(await stats()).toEqual([]);
    });
  });
});

describe('stats job on PostgreSQL with two instances', () => {
  let temp: TempDatabase;
  let a: DbHandle;
  let b: DbHandle;

  beforeAll(async () => {
    temp = await createTempDatabase('stats_lock');
    a = createDb(temp.url);
    b = createDb(temp.url);
    expect((await migrateToLatest(a.kysely, a.engine)).error).toBeUndefined();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await temp?.drop();
  });

  it('lets only one instance hold the job lock at a time', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = withStatsLock(a, async () => {
      await held;
      return 'a ran';
    });
    // Give the first instance time to take the lock, then try from the second.
    const holders = sql<{ n: number }>`
      SELECT count(*)::int AS n FROM pg_locks
       WHERE locktype = 'advisory' AND granted AND objid::bigint = ${STATS_LOCK_KEY}
         AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`;
    await expect.poll(async () => (await holders.execute(b.kysely)).rows[0]?.n).toBe(1);
    expect(await withStatsLock(b, async () => 'b ran')).toEqual({ acquired: false });
    release();
    expect(await first).toEqual({ acquired: true, value: 'a ran' });
    expect((await holders.execute(b.kysely)).rows[0]?.n).toBe(0);
    // Released afterwards: the second instance may run now.
    expect(await withStatsLock(b, async () => 'b ran')).toEqual({ acquired: true, value: 'b ran' });
  });

  it('runs a tick fired on two instances at once exactly once', async () => {
    await a.kysely.insertInto('event').values(impression('x', '2026-03-19T12:00:00Z')).execute();
    const tickMs = Date.UTC(2026, 2, 20, 0, 5);
    const outcomes = await Promise.all([runStatsTick({ db: a, now: () => tickMs + 1 }, tickMs), runStatsTick({ db: b, now: () => tickMs + 2 }, tickMs)]);
    expect(outcomes.filter((outcome) => outcome.ran)).toHaveLength(1);
    expect(outcomes.find((outcome) => !outcome.ran)).toMatchObject({ ran: false, reason: expect.stringMatching(/^(locked|already-done)$/) });
    const rows = await a.kysely.selectFrom('daily_stat').select(['day', 'impr_count', 'materialized_at']).orderBy('day').execute();
    expect(rows.map((row) => [row.day, Number(row.impr_count)])).toEqual([['2026-03-17', 0], ['2026-03-18', 0], ['2026-03-19', 1]]);
    // Written by one instance only: every row carries the same instance's clock.
    expect(new Set(rows.map((row) => Number(row.materialized_at))).size).toBe(1);
  });
});

describe('materialization against a broken database', () => {
  it('returns the database error with the days committed so far instead of throwing', async () => {
    const handle = createDb(':memory:'); // never migrated: no daily_stat table
    try {
      const result = await materialize({ db: handle }, '2026-03-01', '2026-03-02');
      expect(result.days).toBe(0);
      expect(result.error?.message).toMatch(/no such table/);
    } finally {
      await handle.close();
    }
  });
});
