import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';
import { dataEndpoint } from '../../../../src/features/stats/data.endpoint.ts';
import { PATHS } from '../../../../src/lib/paths.ts';
import { openTestDb, type TestDb } from '../../../helpers/contact-fixtures.ts';
import { callEndpoint } from '../../../helpers/endpoint.ts';

describe('the data endpoint\'s metrics', () => {
  let db: TestDb | undefined;
  afterAll(async () => {
    await db?.dispose();
  });

  it('times each query of a range, and only requests that reach the database', async () => {
    db = await openTestDb('sqlite');
    const metrics = createMetrics({ processMetrics: false });
    const deps = { db: db.handle, log: pino({ level: 'silent' }), meter: metrics.meter };
    const get = (query: string) => callEndpoint(dataEndpoint, new Request(`http://site.test${PATHS.data}?${query}`), deps);
    expect((await get('startDate=2026-01-01&endDate=2026-01-31')).status).toBe(200);
    expect((await get('startDate=2026-02-01&endDate=2026-02-10')).status).toBe(200);
    // Refused before any query.
    expect((await get('startDate=2026-02-10&endDate=2026-02-01')).status).toBe(400);
    const count = (await metrics.scrape()).split('\n').find((line) => line.startsWith('stats_query_duration_seconds_count '));
    expect(count).toBe('stats_query_duration_seconds_count 2');
  });
});
