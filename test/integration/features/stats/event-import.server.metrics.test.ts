import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';
import { importEvents } from '../../../../src/features/stats/event-import.server.ts';
import { openTestDb, type TestDb } from '../../../helpers/contact-fixtures.ts';

describe('the event import\'s metric', () => {
  let db: TestDb | undefined;
  afterAll(async () => {
    await db?.dispose();
  });

  it('counts the events inserted, not the duplicates or the bad lines', async () => {
    db = await openTestDb('sqlite');
    const metrics = createMetrics({ processMetrics: false });
    const lines = [
      '{"id":"m-1","occurred_at":"2026-03-01T10:00:00Z","kind":"transaction","revenue":"1.00"}',
      '{"id":"m-2","occurred_at":"2026-03-01T11:00:00Z","kind":"impression","revenue":""}',
      '{"id":"m-1","occurred_at":"2026-03-01T10:00:00Z","kind":"transaction","revenue":"1.00"}',
      'not json',
    ].join('\n');
    const result = await importEvents(db.handle.kysely, Readable.from([lines]), 'ndjson', { meter: metrics.meter, batchSize: 2 });
    expect(result).toMatchObject({ inserted: 2, duplicates: 1, bad: 1 });
    expect((await metrics.scrape()).split('\n')).toContain('stats_events_imported_total 2');
  });
});
