/**
 * Demo data: migrate the database named by DATABASE_URL (default ./data/site.db) and, when it
 * holds no events yet, generate realistic raw events for the 400 days up to yesterday (UTC) and
 * materialise every complete day. A second run finds the events and does nothing more than
 * catch up missing days.
 *
 *   npx node jobs/cli/seed.ts
 */
import { sql } from 'kysely';
import { loadConfig } from '../../src/app/config.ts';
import { createDb, type DbHandle, sqlitePath } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import type { NewEvent } from '../../src/db/schema.ts';
import { dayOfInstant, formatDay } from '../../src/lib/calendar.ts';
import { eventsForDay, mulberry32 } from '../../src/features/stats/seed-events.ts';
import { insertEvents } from '../../src/features/stats/stats.server.ts';
import { materialize, materializeMissing } from '../materialize.ts';

export const SEED_DAYS = 400;
/** Events per write transaction: large enough to amortise commits, small enough to bound memory. */
const EVENTS_PER_TRANSACTION = 50_000;

async function main(): Promise<number> {
  const started = performance.now();
  const config = loadConfig(process.env);
  const handle = createDb(config.DATABASE_URL, { sqliteSynchronous: config.SQLITE_SYNCHRONOUS, statementTimeoutMs: 60_000 });
  try {
    const migration = await migrateToLatest(handle.db, handle.engine);
    if (migration.error) {
      console.error(`seed: migrating ${handle.target} failed: ${(migration.error as Error).message ?? String(migration.error)}`);
      return 1;
    }
    const existing = await handle.db.selectFrom('event').select('id').limit(1).executeTakeFirst();
    if (existing) {
      const caughtUp = await materializeMissing({ db: handle });
      if (caughtUp.error) {
        console.error(`seed: materialising missing days failed: ${caughtUp.error.message}`);
        return 1;
      }
      console.log(`seed: ${handle.target} already has events; nothing seeded${caughtUp.days > 0 ? ` (materialised ${caughtUp.days} missing days)` : ''}.`);
      return 0;
    }

    const lastDay = dayOfInstant(Date.now()) - 1;
    const firstDay = lastDay - SEED_DAYS + 1;
    // Three outage days spread over the period, so charts show what a zero day looks like.
    const plan = { firstDay, lastDay, zeroDayOffsets: [57, 211, 342], seed: 20_260_101 };
    const random = mulberry32(plan.seed);
    const writer = await bulkWriter(handle, config.DATABASE_URL);
    let pending: NewEvent[] = [];
    let events = 0;
    try {
      for (let day = firstDay; day <= lastDay; day++) {
        pending.push(...eventsForDay(plan, day, random));
        if (pending.length >= EVENTS_PER_TRANSACTION) {
          events += await writer.write(pending);
          pending = [];
        }
      }
      events += await writer.write(pending);
    } finally {
      writer.close();
    }
    if (handle.engine === 'postgres') {
      // Fresh statistics and visibility map after a bulk load: the rollup below (and every later
      // one) can then plan an index-only range scan instead of visiting the heap.
      await sql`VACUUM ANALYZE event`.execute(handle.db);
    }
    const inserted = performance.now();

    const result = await materialize({ db: handle }, formatDay(firstDay), formatDay(lastDay), { batchDays: 100 });
    if (result.error) {
      console.error(`seed: materialising failed after ${result.days} days: ${result.error.message}`);
      return 1;
    }
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    console.log(
      `seed: ${events.toLocaleString('en')} events over ${SEED_DAYS} days (${formatDay(firstDay)} to ${formatDay(lastDay)}) into ${handle.target} ` +
        `in ${seconds(inserted - started)} s; materialised ${result.days} days in ${seconds(performance.now() - inserted)} s.`,
    );
    return 0;
  } finally {
    await handle.close();
  }
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
async function bulkWriter(handle: DbHandle, url: string): Promise<BulkWriter> {
  if (handle.engine === 'sqlite' && sqlitePath(url) !== ':memory:') {
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
  if (handle.engine === 'postgres') {
    return {
      write: async (events) => {
        if (events.length === 0) return 0;
        const result = await sql`
          INSERT INTO event (id, occurred_at, kind, revenue_minor)
          SELECT * FROM unnest(CAST(${events.map((e) => e.id)} AS text[]), CAST(${events.map((e) => e.occurred_at)} AS bigint[]),
                               CAST(${events.map((e) => e.kind)} AS text[]), CAST(${events.map((e) => e.revenue_minor ?? 0)} AS bigint[]))
          ON CONFLICT (id) DO NOTHING`.execute(handle.db);
        return Number(result.numAffectedRows ?? 0n);
      },
      close: () => {},
    };
  }
  return { write: (events) => handle.db.transaction().execute((trx) => insertEvents(trx, events)), close: () => {} };
}

process.exitCode = await main();
