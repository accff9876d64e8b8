/**
 * Writes the demo events of seed-events.ts into the `event` table as fast as each engine allows;
 * the seeder (jobs/cli/seed.ts) decides when, and materializes the days afterwards.
 */
import { sql } from 'kysely';
import { type DbHandle } from '../../db/create-db.ts';
import { sqlitePath } from '../../db/database-url.ts';
import type { NewEvent } from '../../db/schema.ts';
import { eventsForDay, mulberry32, type SeedPlan } from './seed-events.ts';
import { insertEvents } from './stats.server.ts';

/** Events per write transaction: large enough to amortise commits, small enough to bound memory. */
const EVENTS_PER_TRANSACTION = 50_000;

/**
 * Generate and insert the events of every day of `plan` (deterministic for its seed); returns how
 * many were new. `databaseUrl` is the one `handle` was opened with: SQLite loads through a
 * second connection to the same file. `onDay` hears how many days are generated so far.
 */
export async function writeSeedEvents(db: DbHandle, databaseUrl: string, plan: SeedPlan, onDay?: (daysDone: number) => void): Promise<number> {
  const random = mulberry32(plan.seed ?? 1);
  const writer = await bulkWriter(db, databaseUrl);
  let pending: NewEvent[] = [];
  let events = 0;
  try {
    for (let day = plan.firstDay; day <= plan.lastDay; day++) {
      pending.push(...eventsForDay(plan, day, random));
      if (pending.length >= EVENTS_PER_TRANSACTION) {
        events += await writer.write(pending);
        pending = [];
      }
      onDay?.(day - plan.firstDay + 1);
    }
    events += await writer.write(pending);
  } finally {
    writer.close();
  }
  if (db.engine === 'postgres') {
    // Fresh statistics and visibility map after a bulk load: the rollup that follows (and every
    // later one) can then plan an index-only range scan instead of visiting the heap.
    await sql`VACUUM ANALYZE event`.execute(db.kysely);
  }
  return events;
}

interface BulkWriter {
  /** Insert one transaction's worth of events; returns how many were new. */
  write(events: readonly NewEvent[]): Promise<number>;
  close(): void;
}

/**
 * The fastest portable-enough way to load a million rows on each engine. SQLite: a prepared
 * better-sqlite3 statement on a second connection to the same file (kysely's per-statement
 * compile doubled the load time here). PostgreSQL: one INSERT ... SELECT FROM unnest(arrays)
 * per transaction, four parameters however many rows. Anything else: the repository's
 * multi-row INSERTs.
 */
async function bulkWriter(db: DbHandle, url: string): Promise<BulkWriter> {
  if (db.engine === 'sqlite' && sqlitePath(url) !== ':memory:') {
    const { default: SQLite } = await import('better-sqlite3');
    const conn = new SQLite(sqlitePath(url), { timeout: 60_000 });
    conn.pragma('journal_mode = WAL');
    conn.pragma('synchronous = NORMAL');
    const insert = conn.prepare('INSERT INTO event (id, occurred_at, kind, revenue_minor) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING');
    const writeAll = conn.transaction((events: readonly NewEvent[]) => {
      let inserted = 0;
      for (const e of events) inserted += insert.run(e.id, e.occurred_at, e.kind, e.revenue_minor ?? 0).changes;
      return inserted;
    });
    return { write: async (events) => writeAll(events), close: () => conn.close() };
  }
  if (db.engine === 'postgres') {
    return {
      write: async (events) => {
        if (events.length === 0) return 0;
        const result = await sql`
          INSERT INTO event (id, occurred_at, kind, revenue_minor)
          SELECT * FROM unnest(CAST(${events.map((e) => e.id)} AS text[]), CAST(${events.map((e) => e.occurred_at)} AS bigint[]),
                               CAST(${events.map((e) => e.kind)} AS text[]), CAST(${events.map((e) => e.revenue_minor ?? 0)} AS bigint[]))
          ON CONFLICT (id) DO NOTHING`.execute(db.kysely);
        return Number(result.numAffectedRows ?? 0n);
      },
      close: () => {},
    };
  }
  return { write: (events) => db.kysely.transaction().execute((trx) => insertEvents(trx, events)), close: () => {} };
}
