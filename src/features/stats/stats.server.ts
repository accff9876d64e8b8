/**
 * Repository of the stats tables (`event`, `daily_stat`), the same SQL on SQLite and PostgreSQL.
 * The materialization itself (events to days) lives in materialize.server.ts.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { DailyStatRow, Database, NewEvent } from '../../db/schema.ts';
import type { DataRecord } from './data-record.ts';
import { centsToAmount } from './money.ts';

type Db = Kysely<Database>;

/** A stored day as the data interface publishes it (docs/interface.md section 2, DataRecord). */
export function toDataRecord(row: DailyStatRow): DataRecord {
  return {
    date: row.day,
    txn_count: row.txn_count,
    impr_count: row.impr_count,
    service_revenue: centsToAmount(row.revenue_minor),
  };
}

/**
 * The range read, built and compiled once per Kysely instance (the dialect decides the SQL text),
 * its parameters the first and last day. Each `within` and each transaction has an instance of
 * its own, so a caller on a hot path passes the handle's `db.kysely` (to `DbHandle.read`).
 */
const dailyStatsReads = new WeakMap<Db, string>();

export function dailyStatsSql(db: Db): string {
  let text = dailyStatsReads.get(db);
  if (text === undefined) {
    text = db
      .selectFrom('daily_stat')
      .select(['day', 'txn_count', 'impr_count', 'revenue_minor', 'materialized_at'])
      .where('day', '>=', '')
      .where('day', '<=', '')
      .orderBy('day')
      .compile().sql;
    dailyStatsReads.set(db, text);
  }
  return text;
}

/** A `daily_stat` row as the driver returns it (before `readDailyStats` makes its numbers numbers). */
export interface DailyStatResult {
  day: string;
  txn_count: number | bigint | string;
  impr_count: number | bigint | string;
  revenue_minor: number | bigint | string;
  materialized_at: number | bigint | string;
}

/**
 * Materialized days from `startDate` to `endDate` (inclusive), ascending. `YYYY-MM-DD` text sorts
 * as the calendar does, so the primary-key index serves both the range and the order. The data
 * API's cache miss runs the same statement through `DbHandle.read` (data.endpoint.ts).
 */
export async function readDailyStats(db: Db, startDate: string, endDate: string): Promise<DailyStatRow[]> {
  const { rows } = await db.executeQuery<DailyStatResult>(CompiledQuery.raw(dailyStatsSql(db), [startDate, endDate]));
  // bigint columns: SQLite returns numbers, pg is configured to (create-db.ts); Number() keeps both honest.
  return rows.map((row) => ({
    day: row.day,
    txn_count: Number(row.txn_count),
    impr_count: Number(row.impr_count),
    revenue_minor: Number(row.revenue_minor),
    materialized_at: Number(row.materialized_at),
  }));
}

/** The `day` values already materialized between two days (inclusive). */
export async function materializedDays(db: Db, startDate: string, endDate: string): Promise<Set<string>> {
  const rows = await db.selectFrom('daily_stat').select('day').where('day', '>=', startDate).where('day', '<=', endDate).execute();
  return new Set(rows.map((row) => row.day));
}

/** Instant (epoch ms) of the earliest event, or undefined when there are none. Served by the occurred_at index. */
export async function earliestEventAt(db: Db): Promise<number | undefined> {
  const row = await db
    .selectFrom('event')
    .select((eb) => eb.fn.min('occurred_at').as('first'))
    .executeTakeFirst();
  return row?.first === null || row?.first === undefined ? undefined : Number(row.first);
}

/** Rows per multi-row INSERT: 4 parameters each stays far below SQLite's 32 766 and PostgreSQL's 65 535. */
export const INSERT_CHUNK_ROWS = 1_000;

/**
 * Insert events, skipping ids already present (`ON CONFLICT (id) DO NOTHING`), in multi-row
 * statements. Run it inside a transaction to make a batch atomic. Returns how many were new.
 */
export async function insertEvents(db: Db, events: readonly NewEvent[]): Promise<number> {
  let inserted = 0;
  for (let i = 0; i < events.length; i += INSERT_CHUNK_ROWS) {
    const result = await db
      .insertInto('event')
      .values(events.slice(i, i + INSERT_CHUNK_ROWS))
      .onConflict((oc) => oc.column('id').doNothing())
      .executeTakeFirst();
    inserted += Number(result.numInsertedOrUpdatedRows ?? 0n);
  }
  return inserted;
}
