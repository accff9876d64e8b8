/**
 * The scrape-time readings the composition root registers (src/app/metrics.ts), against real
 * SQLite and PostgreSQL databases, and the database's failed statements counted.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { registerCollectors } from '../../../src/app/metrics.ts';
import { createMetrics } from '../../../src/features/metrics/registry.server.ts';
import { ENGINES, openTestDb, type TestDb } from '../../helpers/contact-fixtures.ts';
import { sql } from 'kysely';

const valueOf = (text: string, sample: string) => Number(text.split('\n').find((line) => line.startsWith(`${sample} `))?.split(' ')[1]);
const DAY = 86_400_000;

describe.each(ENGINES)('scrape-time readings on %s', (engine) => {
  let db: TestDb | undefined;
  afterAll(async () => {
    await db?.dispose();
  });

  it('reads the outbox backlog, the stats freshness, the caches and the limiter', async () => {
    let errors = 0;
    db = await openTestDb(engine, { onQueryError: () => errors++ });
    const { kysely } = db.handle;
    const now = Date.UTC(2026, 10, 27, 12);
    const metrics = createMetrics({ processMetrics: false });
    let degraded = false;
    registerCollectors(metrics, { db: db.handle, cache: { bytes: 2048, size: 3 }, statics: { bytes: 4096 }, limiter: { get degraded() { return degraded; } }, now: () => now });

    const empty = await metrics.scrape();
    expect(valueOf(empty, 'contact_outbox_pending')).toBe(0);
    expect(valueOf(empty, 'contact_outbox_oldest_pending_age_seconds')).toBe(0);
    expect(valueOf(empty, 'stats_last_materialization_timestamp_seconds')).toBe(0);
    expect(valueOf(empty, 'http_response_cache_bytes')).toBe(2048);
    expect(valueOf(empty, 'http_response_cache_entries')).toBe(3);
    expect(valueOf(empty, 'http_static_cache_bytes')).toBe(4096);
    expect(valueOf(empty, 'ratelimit_degraded')).toBe(0);

    const row = (created: number, status: 'pending' | 'delivered' | 'none') => ({ created_at: created, name: 'A', work_email: 'a@example.com', priority: 'high' as const, delivery_status: status, next_attempt_at: status === 'pending' ? created : null });
    await kysely.insertInto('contact_submission').values([row(now - 7_200_000, 'pending'), row(now - 60_000, 'pending'), row(now - 9 * DAY, 'delivered'), row(now - 10 * DAY, 'none')]).execute();
    // Days up to 2026-11-23 are settled on the 27th (lastSettledDay: four days back).
    const stat = (day: string, at: number) => ({ day, txn_count: 1, impr_count: 1, revenue_minor: 1, materialized_at: at });
    await kysely.insertInto('daily_stat').values([stat('2026-11-20', now - 3 * DAY), stat('2026-11-22', now - 2 * DAY), stat('2026-11-26', now - 3_600_000)]).execute();
    degraded = true;

    const full = await metrics.scrape();
    expect(valueOf(full, 'contact_outbox_pending')).toBe(2);
    expect(valueOf(full, 'contact_outbox_oldest_pending_age_seconds')).toBe(7200);
    expect(valueOf(full, 'stats_last_materialization_timestamp_seconds')).toBe((now - 3_600_000) / 1000);
    expect(valueOf(full, 'stats_last_settled_day_timestamp_seconds')).toBe(Date.UTC(2026, 10, 22) / 1000);
    expect(valueOf(full, 'ratelimit_degraded')).toBe(1);
    expect(full).not.toContain('metrics_collect_errors_total{');

    // A failed statement is counted by the database layer's error hook.
    await expect(sql`SELECT * FROM no_such_table`.execute(kysely)).rejects.toThrow();
    expect(errors).toBe(1);
  });
});
