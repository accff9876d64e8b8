/**
 * DbHandle.read (src/db/create-db.ts), on real SQLite and real PostgreSQL: one read-only statement
 * with `within`'s deadline. On SQLite a read that meets no lock runs straight on the reader
 * connection, outside kysely; anything else (the deadline gone, an error, `:memory:`) takes the
 * careful path, which keeps the deadline and reports failures.
 */
import { CompiledQuery } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDb } from '../../../src/db/create-db.ts';
import { Deadline } from '../../../src/db/deadline.ts';
import { migrateToLatest } from '../../../src/db/migrations/index.ts';
import { DeadlineExceeded } from '../../../src/db/storage-errors.ts';
import { dailyStatsSql, readDailyStats } from '../../../src/features/stats/stats.server.ts';
import { ENGINES, openTestDb, type TestDb } from '../../helpers/contact-fixtures.ts';

const day = (d: string, n: number) => ({ day: d, txn_count: n, impr_count: n * 10, revenue_minor: n * 100, materialized_at: n });

describe.each(ENGINES)('DbHandle.read on %s', (engine) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    vi.restoreAllMocks();
    await db?.dispose();
    db = undefined;
  });

  it('gives the rows readDailyStats gives, within the deadline, the way the engine allows', async () => {
    db = await openTestDb(engine);
    const { handle } = db;
    await handle.kysely.insertInto('daily_stat').values([day('2026-01-01', 1), day('2026-01-02', 2), day('2026-01-04', 4)]).execute();
    const careful = vi.spyOn(handle.kysely, 'connection');
    const rows = await handle.read<{ day: string; txn_count: number }>(5_000, dailyStatsSql(handle.kysely), ['2026-01-02', '2026-01-31']);
    expect(rows.map((row) => [row.day, Number(row.txn_count)])).toEqual([['2026-01-02', 2], ['2026-01-04', 4]]);
    // SQLite's reader answers at once, outside kysely; PostgreSQL is a round trip on a pooled connection.
    expect(careful).toHaveBeenCalledTimes(engine === 'sqlite' ? 0 : 1);
    const viaKysely = await readDailyStats(handle.kysely, '2026-01-02', '2026-01-31');
    expect(rows.map((row) => row.day)).toEqual(viaKysely.map((row) => row.day));
  });

  it('refuses with DeadlineExceeded once the deadline has passed, and runs nothing', async () => {
    db = await openTestDb(engine);
    const { handle } = db;
    const passed = Deadline.at(Date.now() - 1);
    await expect(handle.read(passed, dailyStatsSql(handle.kysely), ['2026-01-01', '2026-01-31'])).rejects.toBeInstanceOf(DeadlineExceeded);
    await expect(handle.read(0, dailyStatsSql(handle.kysely), ['2026-01-01', '2026-01-31'])).rejects.toBeInstanceOf(DeadlineExceeded);
  });

  it('reports a failing statement the careful way: the error itself, heard by onQueryError', async () => {
    const heard: unknown[] = [];
    db = await openTestDb(engine, { onQueryError: (error) => heard.push(error) });
    const { handle } = db;
    const failure = await handle.read(5_000, 'select missing_column from daily_stat', []).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    expect(String(failure)).toMatch(/missing_column/);
    expect(heard).toContain(failure);
  });
});

describe('DbHandle.read on an in-memory SQLite database', () => {
  it('takes the careful path (one connection for everything) and gives the rows', async () => {
    const handle = createDb(':memory:');
    try {
      expect((await migrateToLatest(handle.kysely, handle.engine)).error).toBeUndefined();
      await handle.kysely.executeQuery(CompiledQuery.raw("insert into daily_stat (day, txn_count, impr_count, revenue_minor, materialized_at) values ('2026-01-01', 1, 2, 3, 4)"));
      const careful = vi.spyOn(handle.kysely, 'connection');
      expect(await handle.read(5_000, dailyStatsSql(handle.kysely), ['2026-01-01', '2026-01-01'])).toEqual([{ day: '2026-01-01', txn_count: 1, impr_count: 2, revenue_minor: 3, materialized_at: 4 }]);
      expect(careful).toHaveBeenCalledTimes(1);
    } finally {
      await handle.close();
    }
  });
});
