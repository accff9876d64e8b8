/**
 * The server side of /stats against a real in-memory SQLite database: it validates like the data
 * API, reads the same rows and produces the same records the API serves.
 */
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/app/config.ts';
import { createDb, type DbHandle } from '../../../../src/db/create-db.ts';
import { migrateToLatest } from '../../../../src/db/migrations/index.ts';
import { dataEndpoint } from '../../../../src/features/stats/data.endpoint.ts';
import { callEndpoint } from '../../../helpers/endpoint.ts';
import { jsonForScript, loadStatsPage } from '../../../../src/features/stats/stats-page.server.ts';
import { createLogger } from '../../../../src/server/log.ts';
import type { Services } from '../../../../src/app/services.ts';
import { NO_METER } from '../../../../src/lib/meter.ts';

/** 2026-03-20 12:00 UTC: the default range is 2026-02-17 to 2026-03-19. */
const NOW = Date.UTC(2026, 2, 20, 12);

let handle: DbHandle;
let services: Services;
let logLines: string[];

beforeEach(async () => {
  handle = createDb(':memory:');
  const migration = await migrateToLatest(handle.kysely, handle.engine);
  expect(migration.error).toBeUndefined();
  logLines = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  services = { config: loadConfig({ NODE_ENV: 'test' }), db: handle, log: createLogger({ level: 'error', stream }), purgeCache: () => {}, meter: NO_METER, assistantIndex: () => Promise.reject(new Error('no assistant index in this test')) };
  await handle.kysely
    .insertInto('daily_stat')
    .values([
      { day: '2026-02-16', txn_count: 9, impr_count: 900, revenue_minor: 999, materialized_at: NOW },
      { day: '2026-02-17', txn_count: 3, impr_count: 310, revenue_minor: 10, materialized_at: NOW },
      { day: '2026-03-01', txn_count: 0, impr_count: 0, revenue_minor: 0, materialized_at: NOW },
      { day: '2026-03-19', txn_count: 5, impr_count: 520, revenue_minor: 20, materialized_at: NOW },
    ])
    .execute();
});

afterEach(async () => {
  await handle.close().catch(() => {});
});

const params = (query: Record<string, string>) => new URLSearchParams(query);

describe('loading /stats', () => {
  it('shows the last 31 complete UTC days when no range is asked for', async () => {
    const page = await loadStatsPage(params({}), services, NOW);
    expect(page.status).toBe(200);
    expect(page.cacheControl).toBe('public, max-age=60');
    expect(page.state.kind).toBe('ok');
    if (page.state.kind !== 'ok') return;
    expect(page.state.range).toEqual({ startDate: '2026-02-17', endDate: '2026-03-19' });
    expect(page.state.records.map((r) => r.date)).toEqual(['2026-02-17', '2026-03-01', '2026-03-19']);
    expect(page.state.totals).toEqual({ days: 3, txnCount: 8, imprCount: 830, revenueCents: 30 });
  });

  it('gives the same records as the data API for the same range', async () => {
    const query = { startDate: '2026-02-16', endDate: '2026-03-01' };
    const page = await loadStatsPage(params(query), services, NOW);
    const api = await callEndpoint(dataEndpoint, new Request(`http://x/api/v1/public/data?${params(query).toString()}`), { ...services, now: () => NOW });
    const body = (await api.json()) as { data: unknown };
    expect(page.state.kind === 'ok' && page.state.records).toEqual(body.data);
    expect(page.state.kind === 'ok' && page.state.records[1]).toEqual({ date: '2026-02-17', txn_count: 3, impr_count: 310, service_revenue: 0.1 });
  });

  it('answers an invalid range with 400, the data API message and the typed values', async () => {
    const query = { startDate: '2026-02-29', endDate: '2026-03-02' };
    const page = await loadStatsPage(params(query), services, NOW);
    const api = await callEndpoint(dataEndpoint, new Request(`http://x/api/v1/public/data?${params(query).toString()}`), services);
    const body = (await api.json()) as { code: string; message: string };
    expect(page.status).toBe(400);
    expect(page.cacheControl).toBe('no-store');
    expect(page.state).toEqual({ kind: 'invalid', range: query, message: body.message });
    expect(body.message).toMatchInlineSnapshot(`"startDate "2026-02-29" is not a calendar date"`);
  });

  it('refuses 32 days and accepts 31, as the API does', async () => {
    expect((await loadStatsPage(params({ startDate: '2026-01-01', endDate: '2026-02-01' }), services, NOW)).status).toBe(400);
    expect((await loadStatsPage(params({ startDate: '2026-01-01', endDate: '2026-01-31' }), services, NOW)).status).toBe(200);
  });

  it('judges a query that gives only one end by the API rules instead of defaulting', async () => {
    const page = await loadStatsPage(params({ startDate: '2026-03-01' }), services, NOW);
    expect(page.status).toBe(400);
    expect(page.state.kind === 'invalid' && page.state.message).toBe('endDate is required: give the last day of the range as YYYY-MM-DD');
    expect(page.state.range).toEqual({ startDate: '2026-03-01', endDate: '' });
  });

  it('echoes at most 32 characters of a rejected value back into the form', async () => {
    const page = await loadStatsPage(params({ startDate: 'x'.repeat(5000), endDate: '2026-03-01' }), services, NOW);
    expect(page.state.range.startDate).toBe('x'.repeat(32));
  });

  it('shows an empty range of days not materialized yet as a success with no records', async () => {
    const page = await loadStatsPage(params({ startDate: '2026-03-20', endDate: '2026-03-25' }), services, NOW);
    expect(page.status).toBe(200);
    expect(page.state.kind === 'ok' && page.state.records).toEqual([]);
  });

  it('answers 503, not cacheable, and logs when the database fails', async () => {
    await handle.close();
    const page = await loadStatsPage(params({}), services, NOW);
    expect(page.status).toBe(503);
    expect(page.cacheControl).toBe('no-store');
    expect(page.state.kind).toBe('unavailable');
    expect(logLines.join('')).toContain('stats page: reading daily stats failed');
  });
});

describe('the embedded data block', () => {
  it('escapes < so no value can close its script element, and parses back to the same value', () => {
    const json = jsonForScript({ text: '</script><script>alert(1)</script>', sep: '\u2028' });
    expect(json).not.toContain('<');
    expect(json).not.toContain('\u2028');
    expect(JSON.parse(json)).toEqual({ text: '</script><script>alert(1)</script>', sep: '\u2028' });
  });
});
