/**
 * kysely's SQLite driver, rewritten so that no statement ever waits for a lock on the event loop.
 *
 * better-sqlite3 runs each statement synchronously, and SQLite's busy_timeout waits for another
 * connection's lock by sleeping inside that call: with a CLI import holding the write lock the
 * whole server froze for the full timeout (issue 16). Here the connection runs with
 * busy_timeout = 0, so a locked database answers SQLITE_BUSY at once, and the statement is tried
 * again after a jittered timer while the event loop serves everything else. The wait is bounded
 * by the statement's lock budget and by the caller's deadline (DbHandle.withDeadline), and no
 * statement but ROLLBACK starts after that deadline: work a caller gave up on never commits later.
 *
 * Transactions begin IMMEDIATE: they take the write lock up front, where retrying is safe, instead
 * of on their first write, where WAL may answer SQLITE_BUSY_SNAPSHOT, which no retry can cure
 * (https://sqlite.org/lang_transaction.html, https://sqlite.org/wal.html#sometimes_queries_return_sqlite_busy_in_wal_mode).
 */
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { DeadlineExceeded, isSqliteBusy } from './storage-errors.ts';

export interface WriteHealthObserver {
  /** A write committed. */
  wrote(): void;
  /** A statement failed; the observer decides whether it says anything about writes. */
  failed(error: unknown): void;
}

export interface SqliteDriverConfig {
  /** Opens the connection (lazily, on first use). */
  open: () => Promise<BetterSqlite3.Database>;
  /** Longest one statement waits for a lock, in ms. */
  lockWaitMs: number;
  /** Absolute deadline (epoch ms) of the work the current statement belongs to, if any. */
  deadline: () => number | undefined;
  health: WriteHealthObserver;
}

/** First retry after ~2 ms, doubling to 50 ms: a short lock costs little latency, a long one little CPU. */
function retryDelayMs(attempt: number): number {
  const ceiling = Math.min(50, 2 * 2 ** attempt);
  // "Equal jitter": half fixed, half random, so concurrent waiters spread out (AWS architecture blog, 2015).
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class RetryingSqliteDriver implements Driver {
  readonly #config: SqliteDriverConfig;
  #db: BetterSqlite3.Database | undefined;
  #connection: RetryingSqliteConnection | undefined;

  constructor(config: SqliteDriverConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    this.#db = await this.#config.open();
    this.#connection = new RetryingSqliteConnection(this.#db, this.#config);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    // kysely serialises use of the one connection (SqliteAdapter.supportsMultipleConnections is false).
    return this.#connection!;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    // A failed COMMIT (SQLITE_FULL, SQLITE_IOERR) may already have rolled back; a second
    // ROLLBACK would replace the real error with "no transaction is active".
    if (this.#db?.inTransaction) await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {}

  async destroy(): Promise<void> {
    this.#db?.close();
  }
}

class RetryingSqliteConnection implements DatabaseConnection {
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

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const deadline = this.#config.deadline();
    const isRollback = /^\s*rollback\b/i.test(compiledQuery.sql);
    const giveUpAt = Math.min(Date.now() + this.#config.lockWaitMs, deadline ?? Infinity);
    let busy: unknown;
    for (let attempt = 0; ; attempt += 1) {
      if (deadline !== undefined && !isRollback && Date.now() >= deadline) {
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
        await sleep(Math.min(retryDelayMs(attempt), giveUpAt - now));
      }
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

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // An open better-sqlite3 iterator would hold the connection across awaits, between which
    // a lock retry cannot run; nothing here streams from SQLite, so one chunk is enough.
    yield await this.executeQuery<R>(compiledQuery);
  }
}
