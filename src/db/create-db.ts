/**
 * The data layer's one factory: kysely over better-sqlite3 (default) or PostgreSQL, chosen by
 * DATABASE_URL. Nothing connects at import time; `createDb` opens lazily on first query and the
 * returned handle's `close()` releases everything.
 */
import { CompiledQuery, sql, type Kysely, type KyselyConfig, type LogEvent } from 'kysely';
import { within, type Deadline } from './deadline.ts';
import { engineOf, sqlitePath, type Engine } from './database-url.ts';
import { postgresKysely } from './postgres-engine.ts';
import type { Database } from './schema.ts';
import { sqliteKysely } from './sqlite-engine.ts';
import { WriteHealth } from './write-health.ts';

// Shipped migrations import the Engine type from here, and a shipped migration is never edited.
export type { Engine };

export interface DbHandle {
  kysely: Kysely<Database>;
  engine: Engine;
  /** Human-readable target without credentials, for logs. */
  target: string;
  /**
   * Readiness: resolves when the database answers within `timeoutMs` and can take writes;
   * rejects otherwise. After a write failed for want of storage (disk full, read-only, I/O
   * error) it stays rejecting until a write, or the write probe it then runs itself, succeeds.
   */
  ping(timeoutMs?: number): Promise<void>;
  /**
   * `work` on one connection bound to `deadline` (deadline.ts; or a budget in ms from now): waits
   * for a SQLite lock, the SQLite writer's turn or a PostgreSQL pool connection end at the
   * deadline, no statement of `work` but ROLLBACK starts after it, and the returned promise
   * rejects with DeadlineExceeded by then. So work the caller gave up on cannot commit later (on
   * PostgreSQL a statement already sent is cancelled at the server, postgres-deadline-driver.ts;
   * a write in a transaction is surer still, since its COMMIT is refused whatever the cancel's timing).
   */
  within<T>(deadline: Deadline | number, work: (db: Kysely<Database>) => Promise<T>): Promise<T>;
  /**
   * The rows of one read-only statement (compiled SQL text and its parameters), with `within`'s contract for `deadline`. On
   * SQLite a statement that meets no lock runs at once on the reader connection, without kysely's
   * connection, executor and abort-signal layers (a third of a cache miss of the data API,
   * bench/NOTES.md); anything else (a lock, an error, the deadline gone) takes `within`'s path.
   */
  read<R>(deadline: Deadline | number, sql: string, parameters: readonly unknown[]): Promise<R[]>;
  close(): Promise<void>;
}

export interface DbOptions {
  /** SQLite `synchronous` pragma. */
  sqliteSynchronous?: 'NORMAL' | 'FULL';
  /**
   * Upper bound for any one statement (PostgreSQL statement_timeout; on SQLite the longest a
   * statement waits for a lock, capped at SQLITE_LOCK_WAIT_MS).
   */
  statementTimeoutMs?: number;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** Told of every statement that failed (the metrics' `db_errors_total`); kysely's error log event. */
  onQueryError?: (error: unknown) => void;
}

/**
 * kysely's `log` option for `onQueryError`. A log function hears every statement (kysely has no
 * errors-only function form); it ignores all but errors, so a statement costs one call more.
 */
function errorLog(options: DbOptions): KyselyConfig['log'] {
  const onError = options.onQueryError;
  if (onError === undefined) return undefined;
  return (event: LogEvent) => {
    if (event.level === 'error') onError(event.error);
  };
}

/**
 * How long a SQLite statement waits for another connection's lock, retrying on timers (see
 * sqlite-driver.ts; the event loop runs meanwhile): below the 5 s in which a write endpoint
 * must answer (502 rather than a hang, docs/interface.md section 3).
 */
export const SQLITE_LOCK_WAIT_MS = 3_750;

export function createDb(url: string, options: DbOptions = {}): DbHandle {
  const engine = engineOf(url);
  const health = new WriteHealth();
  const timeout = options.statementTimeoutMs ?? 5_000;
  const log = errorLog(options);
  let db: Kysely<Database>;
  let target: string;
  // Rows of a read that could run at once, or undefined (PostgreSQL never can: it is a round trip).
  let readNow: <R>(query: Pick<CompiledQuery, 'sql' | 'parameters'>) => R[] | undefined = () => undefined;
  if (engine === 'sqlite') {
    const path = sqlitePath(url);
    target = `sqlite:${path}`;
    ({ kysely: db, readNow } = sqliteKysely(path, { synchronous: options.sqliteSynchronous ?? 'NORMAL', lockWaitMs: Math.min(timeout, SQLITE_LOCK_WAIT_MS), health, log }));
  } else {
    const parsed = new URL(url);
    target = `postgres://${parsed.host}${parsed.pathname}`;
    db = postgresKysely(url, { poolSize: options.poolSize ?? 10, timeout, health, log });
  }

  async function probeWrite(kysely: Kysely<Database>): Promise<void> {
    const now = Date.now();
    await kysely
      .insertInto('health_probe')
      .values({ id: 1, checked_at: now })
      .onConflict((oc) => oc.column('id').doUpdateSet({ checked_at: now }))
      .execute();
  }

  return {
    kysely: db,
    engine,
    target,
    async ping(timeoutMs = 2_000) {
      const failure = health.failure;
      try {
        await within<unknown>(db, timeoutMs, (kysely) => (failure === undefined ? sql`select 1`.execute(kysely) : probeWrite(kysely)));
      } catch (error) {
        throw failure === undefined ? error : new Error(`writes are failing: ${failure.message}`, { cause: error });
      }
    },
    within: (deadline, work) => within(db, deadline, work),
    async read<R>(deadline: Deadline | number, text: string, parameters: readonly unknown[]): Promise<R[]> {
      // A statement that starts before the deadline keeps it: this one runs to its end now.
      const left = typeof deadline === 'number' ? deadline : deadline.remainingMs();
      const rows = left > 0 ? readNow<R>({ sql: text, parameters }) : undefined;
      if (rows !== undefined) return rows;
      return (await within(db, deadline, (kysely) => kysely.executeQuery<R>(CompiledQuery.raw(text, [...parameters])))).rows;
    },
    close: () => db.destroy(),
  };
}
