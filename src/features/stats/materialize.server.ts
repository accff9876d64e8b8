/**
 * Raw events to one `daily_stat` row per UTC day, and every other statement the stats job runs
 * (its advisory lock, the "tick already done" check). Plain functions: the scheduler
 * (src/app/jobs/schedule.ts), the backfill CLI, the seeder and tests all call them, and the batch ones
 * return `{ days, restated?, error? }` instead of throwing (like kysely's Migrator): `restated`
 * names the settled days whose figures a run changed (restatement.ts).
 *
 * One statement per batch of days, set-based: the batch's days come in as a VALUES list, each
 * is LEFT JOINed to its events by the half-open range [day start, next day start) in epoch ms,
 * which the (occurred_at, kind, revenue_minor) index answers with one covering range scan per
 * day, and the aggregate is upserted (`ON CONFLICT (day) DO UPDATE`). Days without events still
 * get a row of zeros, and re-running a range rewrites it with the same numbers (idempotent).
 * Comparisons on integers instead of a date function make SQLite and PostgreSQL bucket
 * identically.
 */
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { DbHandle } from '../../db/create-db.ts';
import type { Database } from '../../db/schema.ts';
import { checkDay, consecutiveRuns, dayOfInstant, formatDay, MS_PER_DAY, parseDay, startOfDayMs } from '../../lib/calendar.ts';
import { lastSettledDay } from './response-caching.ts';
import { restatementsOf, type Restatement } from './restatement.ts';
import { earliestEventAt, materializedDays, readDailyStats } from './stats.server.ts';

export type JobLog = Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;

export interface MaterializeDeps {
  db: DbHandle;
  log?: JobLog;
  /** Called after each committed batch with its days (the server purges cached data responses). */
  onCommit?: (days: string[]) => void;
  /** Clock for `materialized_at` and for "complete day" decisions. */
  now?: () => number;
}

export interface MaterializeOptions {
  /** Days per transaction. */
  batchDays?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface MaterializeResult {
  /** Days written (committed). */
  days: number;
  /**
   * Settled days (already served as final, settled.ts) whose figures this run changed, with the
   * old and new figures, ascending; absent when there were none (restatement.ts).
   */
  restated?: Restatement[];
  /** Why it stopped early; days committed before it stay. */
  error?: Error;
}

/** Days per transaction by default: a month keeps each write transaction short. */
export const DEFAULT_BATCH_DAYS = 31;

/** The upsert of one batch of epoch days. Exported for the benchmark and EXPLAIN. */
export function materializeStatement(epochDays: readonly number[], materializedAt: number) {
  // Explicit casts: PostgreSQL types untyped parameters in VALUES as text, which would not
  // compare with a bigint column; SQLite reads CAST(... AS bigint) as INTEGER affinity.
  const days = sql.join(
    epochDays.map((day) => sql`(CAST(${formatDay(day)} AS text), CAST(${startOfDayMs(day)} AS bigint), CAST(${startOfDayMs(day) + MS_PER_DAY} AS bigint))`),
  );
  // `WHERE 1 = 1`: SQLite needs a WHERE in an INSERT ... SELECT with an upsert clause to parse
  // the ON CONFLICT unambiguously (sqlite.org/lang_upsert.html, "Parsing Ambiguity").
  return sql`
    WITH days (day, start_ms, end_ms) AS (VALUES ${days})
    INSERT INTO daily_stat (day, txn_count, impr_count, revenue_minor, materialized_at)
    SELECT d.day,
           count(CASE WHEN e.kind = 'transaction' THEN 1 END),
           count(CASE WHEN e.kind = 'impression' THEN 1 END),
           CAST(coalesce(sum(CASE WHEN e.kind = 'transaction' THEN e.revenue_minor END), 0) AS bigint),
           CAST(${materializedAt} AS bigint)
      FROM days d
      LEFT JOIN event e ON e.occurred_at >= d.start_ms AND e.occurred_at < d.end_ms
     WHERE 1 = 1
     GROUP BY d.day
    ON CONFLICT (day) DO UPDATE SET
      txn_count = excluded.txn_count,
      impr_count = excluded.impr_count,
      revenue_minor = excluded.revenue_minor,
      materialized_at = excluded.materialized_at`;
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Materialize every UTC day from `from` to `to` (YYYY-MM-DD, inclusive). Never throws. */
export async function materialize(deps: MaterializeDeps, from: string, to: string, options: MaterializeOptions = {}): Promise<MaterializeResult> {
  const first = checkDay(from);
  const last = checkDay(to);
  if (!first.ok) return { days: 0, error: new RangeError(`from: ${JSON.stringify(from)} is not a YYYY-MM-DD calendar date`) };
  if (!last.ok) return { days: 0, error: new RangeError(`to: ${JSON.stringify(to)} is not a YYYY-MM-DD calendar date`) };
  if (last.epochDay < first.epochDay) return { days: 0, error: new RangeError(`to (${to}) is before from (${from})`) };
  const batchDays = Math.max(1, Math.floor(options.batchDays ?? DEFAULT_BATCH_DAYS));
  const total = last.epochDay - first.epochDay + 1;
  const now = deps.now ?? Date.now;
  let done = 0;
  const restated: Restatement[] = [];
  const result = (): MaterializeResult => ({ days: done, ...(restated.length > 0 ? { restated } : {}) });
  try {
    for (let start = first.epochDay; start <= last.epochDay; start += batchDays) {
      const epochDays: number[] = [];
      for (let day = start; day <= Math.min(last.epochDay, start + batchDays - 1); day++) epochDays.push(day);
      const changed = await deps.db.kysely.transaction().execute((trx) => writeBatch(trx, epochDays, now()));
      done += epochDays.length;
      const days = epochDays.map(formatDay);
      deps.log?.debug({ from: days[0], to: days.at(-1), days: days.length }, 'days materialized');
      for (const restatement of changed) deps.log?.info(restatement, 'settled day restated');
      restated.push(...changed);
      try {
        deps.onCommit?.(days);
      } catch (error) {
        // The days are committed; a failing listener must not make the job look failed.
        deps.log?.warn({ err: error }, 'materialize onCommit listener failed');
      }
      options.onProgress?.(done, total);
    }
  } catch (error) {
    return { ...result(), error: asError(error) };
  }
  return result();
}

/**
 * One batch in its transaction: the upsert, and the settled days among it whose figures it
 * changed. Those are read before and after, by primary key, only when the batch holds settled
 * days, so the nightly tick (recent days only) pays nothing for it.
 */
async function writeBatch(trx: Kysely<Database>, epochDays: readonly number[], nowMs: number): Promise<Restatement[]> {
  const firstDay = formatDay(epochDays[0]!);
  const settledEnd = Math.min(epochDays.at(-1)!, lastSettledDay(nowMs));
  const before = settledEnd >= epochDays[0]! ? await readDailyStats(trx, firstDay, formatDay(settledEnd)) : [];
  await materializeStatement(epochDays, nowMs).execute(trx);
  if (before.length === 0) return [];
  return restatementsOf(before, await readDailyStats(trx, firstDay, formatDay(settledEnd)));
}

/**
 * Every complete UTC day (up to yesterday as of `nowMs`) since the day of the earliest event
 * that has no `daily_stat` row yet, ascending.
 */
export async function missingDays(db: Kysely<Database>, nowMs: number = Date.now()): Promise<string[]> {
  const earliest = await earliestEventAt(db);
  if (earliest === undefined) return [];
  const first = dayOfInstant(earliest);
  const last = dayOfInstant(nowMs) - 1;
  if (first > last) return [];
  const have = await materializedDays(db, formatDay(first), formatDay(last));
  const missing: string[] = [];
  for (let day = first; day <= last; day++) {
    const text = formatDay(day);
    if (!have.has(text)) missing.push(text);
  }
  return missing;
}

/** Materialize the days `missingDays` finds, one run of consecutive days at a time. Never throws. */
export async function materializeMissing(deps: MaterializeDeps, options: MaterializeOptions = {}): Promise<MaterializeResult> {
  let missing: string[];
  try {
    missing = await missingDays(deps.db.kysely, (deps.now ?? Date.now)());
  } catch (error) {
    return { days: 0, error: asError(error) };
  }
  let days = 0;
  for (const [first, last] of consecutiveRuns(missing.map(parseDay))) {
    const before = days;
    const result = await materialize(deps, formatDay(first), formatDay(last), {
      ...options,
      onProgress: (done) => options.onProgress?.(before + done, missing.length),
    });
    days += result.days;
    if (result.error) return { days, error: result.error };
  }
  return { days };
}

/** pg advisory lock key of the stats job: "STAT" in ASCII, a constant every instance shares. */
export const STATS_LOCK_KEY = 0x53_54_41_54;

export type LockedRun<T> = { acquired: true; value: T } | { acquired: false };

/**
 * Run `work` while holding the stats advisory lock (PostgreSQL), or directly (SQLite: one
 * writer process by design; WAL serialises writers and the job is idempotent anyway).
 * Session-level lock on one pooled connection held for the whole run, since the work itself
 * commits several transactions on other connections; released in `finally`, and by the server
 * if the connection dies.
 */
export async function withStatsLock<T>(db: DbHandle, work: () => Promise<T>): Promise<LockedRun<T>> {
  if (db.engine !== 'postgres') return { acquired: true, value: await work() };
  return db.kysely.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(CAST(${STATS_LOCK_KEY} AS bigint)) AS locked`.execute(conn);
    if (rows[0]?.locked !== true) return { acquired: false } as const;
    try {
      return { acquired: true, value: await work() } as const;
    } finally {
      await sql`SELECT pg_advisory_unlock(CAST(${STATS_LOCK_KEY} AS bigint))`.execute(conn);
    }
  });
}

/**
 * True when every day from `from` to `to` (inclusive) has a row materialized at or after
 * `sinceMs`: another instance has already done the scheduled run of that instant.
 */
export async function daysWrittenSince(db: Kysely<Database>, from: string, to: string, sinceMs: number): Promise<boolean> {
  const expected = parseDay(to) - parseDay(from) + 1;
  const done = await db
    .selectFrom('daily_stat')
    .select((eb) => [eb.fn.countAll<number>().as('days'), eb.fn.min('materialized_at').as('oldest')])
    .where('day', '>=', from)
    .where('day', '<=', to)
    .executeTakeFirst();
  return Number(done?.days ?? 0) === expected && Number(done?.oldest ?? 0) >= sinceMs;
}
