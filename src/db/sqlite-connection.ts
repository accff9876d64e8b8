/**
 * One better-sqlite3 connection run with busy_timeout = 0: a statement that finds the database
 * locked is tried again after a jittered timer instead of sleeping inside SQLite on the event loop
 * (see sqlite-driver.ts for the whole design), within its lock budget and its caller's deadline
 * (the AbortSignal the statement is run with, see deadline.ts).
 */
import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, QueryResult } from 'kysely';
import { DeadlineExceeded, isSqliteBusy } from './storage-errors.ts';

export interface WriteHealthObserver {
  /** A write committed. */
  wrote(): void;
  /** A statement failed; the observer decides whether it says anything about writes. */
  failed(error: unknown): void;
}

export interface SqliteDriverConfig {
  /** Opens a connection (lazily, on first use): the writer first, then the reader. */
  open: () => Promise<BetterSqlite3.Database>;
  /** False for `:memory:`, where every statement uses the one connection. */
  separateReader: boolean;
  /** Longest one statement waits for a lock, in ms. */
  lockWaitMs: number;
  health: WriteHealthObserver;
}

/** First retry after ~2 ms, doubling to 50 ms: a short lock costs little latency, a long one little CPU. */
function retryDelayMs(attempt: number): number {
  const ceiling = Math.min(50, 2 * 2 ** attempt);
  // "Equal jitter": half fixed, half random, so concurrent waiters spread out (AWS architecture blog, 2015).
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Wait `ms`, or less if `signal` fires first: a lock wait ends at the caller's deadline, not after it. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** One better-sqlite3 connection that retries on SQLITE_BUSY on timers. */
export class RetryingSqliteConnection {
  readonly #db: BetterSqlite3.Database;
  readonly #config: SqliteDriverConfig;
  /**
   * kysely's SQLite driver prepares every statement anew; preparing was about 10 % of a stored
   * contact submission. Queries are built from a handful of shapes, so keep their prepared
   * statements (bounded: a flood of distinct SQL simply starts over). Statements run to
   * completion synchronously, so one is never in use twice at once.
   */
  readonly #statements = new Map<string, BetterSqlite3.Statement>();
  /** The open transaction has written something that COMMIT will make durable. */
  #pendingWrite = false;

  constructor(db: BetterSqlite3.Database, config: SqliteDriverConfig) {
    this.#db = db;
    this.#config = config;
  }

  get inTransaction(): boolean {
    return this.#db.inTransaction;
  }

  close(): void {
    this.#db.close();
  }

  /** SQLite's own verdict (sqlite3_stmt_readonly): the statement writes nothing. */
  isReadonly(sql: string): boolean {
    try {
      return this.#prepare(sql).readonly;
    } catch {
      // Let the writer run it and report the error, with its retries and health tracking.
      return false;
    }
  }

  /** Run `compiledQuery`; `signal` is the caller's deadline: no statement but ROLLBACK starts once it has fired. */
  async execute<R>(compiledQuery: CompiledQuery, signal?: AbortSignal): Promise<QueryResult<R>> {
    const isRollback = /^\s*rollback\b/i.test(compiledQuery.sql);
    const giveUpAt = Date.now() + this.#config.lockWaitMs;
    let busy: unknown;
    for (let attempt = 0; ; attempt += 1) {
      if (signal?.aborted && !isRollback) {
        // Still locked at the deadline: report the lock, the real cause.
        throw busy ?? new DeadlineExceeded('the deadline passed before the statement could run; nothing was written');
      }
      try {
        return this.#run<R>(compiledQuery);
      } catch (error) {
        const now = Date.now();
        if (isRollback || !isSqliteBusy(error) || now >= giveUpAt) {
          this.#config.health.failed(error);
          throw error;
        }
        busy = error;
        await pause(Math.min(retryDelayMs(attempt), giveUpAt - now), signal);
      }
    }
  }

  /**
   * The rows of a read-only statement run once, now, or undefined when it is not one or fails
   * (a lock, any error): no retry, no deadline, no health report, which `execute`, the careful
   * path, then gives it. A statement that writes nothing has no bookkeeping for `#run` to do.
   */
  readNow<R>(compiledQuery: Pick<CompiledQuery, 'sql' | 'parameters'>): R[] | undefined {
    try {
      const statement = this.#prepare(compiledQuery.sql);
      return statement.reader && statement.readonly ? (statement.all(compiledQuery.parameters) as R[]) : undefined;
    } catch {
      return undefined;
    }
  }

  #run<R>(compiledQuery: CompiledQuery): QueryResult<R> {
    const { sql, parameters } = compiledQuery;
    const statement = this.#prepare(sql);
    const command = /^\s*(\w+)/.exec(sql)?.[1]?.toLowerCase();
    let result: QueryResult<R>;
    let wrote: boolean;
    if (statement.reader) {
      const rows = statement.all(parameters) as R[];
      result = { rows };
      // INSERT ... RETURNING is a reader that writes.
      wrote = !statement.readonly && rows.length > 0;
    } else {
      const { changes, lastInsertRowid } = statement.run(parameters);
      result = {
        insertId: BigInt(lastInsertRowid),
        numAffectedRows: BigInt(changes),
        rows: [],
      };
      wrote = !statement.readonly && changes > 0;
    }
    if (command === 'commit' || command === 'end') {
      if (this.#pendingWrite) this.#config.health.wrote();
      this.#pendingWrite = false;
    } else if (command === 'rollback' && !this.#db.inTransaction) {
      this.#pendingWrite = false;
    } else if (wrote) {
      if (this.#db.inTransaction) this.#pendingWrite = true;
      else this.#config.health.wrote();
    }
    return result;
  }

  #prepare(sql: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      if (this.#statements.size >= 256) this.#statements.clear();
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }
}
