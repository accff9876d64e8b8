/**
 * kysely's SQLite driver, rewritten so that no statement ever waits for a lock on the event loop
 * and reads never queue behind writes.
 *
 * better-sqlite3 runs each statement synchronously, and SQLite's busy_timeout waits for another
 * connection's lock by sleeping inside that call: with a CLI import holding the write lock the
 * whole server froze for the full timeout. Here connections run with
 * busy_timeout = 0, so a locked database answers SQLITE_BUSY at once, and the statement is tried
 * again after a jittered timer while the event loop serves everything else. The wait is bounded
 * by the statement's lock budget and by the caller's deadline (the AbortSignal kysely hands to
 * `acquireConnection`, see deadline.ts), and no statement but ROLLBACK starts after that
 * deadline: work a caller gave up on never commits later.
 *
 * Two connections: one writer, taken in turn (an async lock, held across a transaction), and one
 * reader for statements outside transactions that SQLite says are read-only. In WAL mode readers
 * never wait for the writer, so the data API and readiness keep answering while a write waits
 * out another process's lock. `:memory:` has one connection for everything (a second would be a
 * second database).
 *
 * Transactions begin IMMEDIATE: they take the write lock up front, where retrying is safe, instead
 * of on their first write, where WAL may answer SQLITE_BUSY_SNAPSHOT, which no retry can cure
 * (https://sqlite.org/lang_transaction.html, https://sqlite.org/wal.html#sometimes_queries_return_sqlite_busy_in_wal_mode).
 */
import { CompiledQuery, SqliteAdapter, type AbortableOperationOptions, type DatabaseConnection, type Driver, type QueryResult } from 'kysely';
import { RetryingSqliteConnection, type SqliteDriverConfig } from './sqlite-connection.ts';
import { DeadlineExceeded } from './storage-errors.ts';

export type { SqliteDriverConfig } from './sqlite-connection.ts';

/** kysely serialises statements on a driver whose adapter says it has one connection; ours has its own turns. */
export class ConcurrentSqliteAdapter extends SqliteAdapter {
  override get supportsMultipleConnections(): boolean {
    return true;
  }
}

/** Whose turn it is on the writer connection; waiting ends at the caller's deadline. */
class WriterTurns {
  #held = false;
  readonly #waiting: Array<() => void> = [];

  async take(signal: AbortSignal | undefined): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return;
    }
    if (signal?.aborted) throw busyUntilDeadline();
    await new Promise<void>((resolve, reject) => {
      const gone = () => {
        this.#waiting.splice(this.#waiting.indexOf(grant), 1);
        reject(busyUntilDeadline());
      };
      const grant = () => {
        signal?.removeEventListener('abort', gone);
        resolve();
      };
      this.#waiting.push(grant);
      signal?.addEventListener('abort', gone, { once: true });
    });
  }

  give(): void {
    const next = this.#waiting.shift();
    if (next === undefined) this.#held = false;
    else next();
  }
}

const busyUntilDeadline = () => new DeadlineExceeded('the database was busy with other writes until the deadline; nothing was written');

export class RetryingSqliteDriver implements Driver {
  readonly #config: SqliteDriverConfig;
  #writer: RetryingSqliteConnection | undefined;
  #reader: RetryingSqliteConnection | undefined;
  readonly #turns = new WriterTurns();

  constructor(config: SqliteDriverConfig) {
    this.#config = config;
  }

  async init(): Promise<void> {
    this.#writer = new RetryingSqliteConnection(await this.#config.open(), this.#config);
    this.#reader = this.#config.separateReader ? new RetryingSqliteConnection(await this.#config.open(), this.#config) : undefined;
  }

  /**
   * The rows of a read-only statement run at once on the reader connection, or undefined when it
   * cannot be: not opened yet, `:memory:` (no separate reader), a statement that writes, a lock,
   * any error. The caller then runs it the careful way (deadline.ts `within`), which retries,
   * reports the failure and keeps the deadline; running a read twice changes nothing. In WAL mode
   * a reader almost never meets a lock, so this is the path of nearly every read.
   */
  readNow<R>(compiledQuery: Pick<CompiledQuery, 'sql' | 'parameters'>): R[] | undefined {
    return this.#reader?.readNow<R>(compiledQuery);
  }

  /** A session bound to the caller's deadline, when kysely was handed one (deadline.ts `within`). */
  async acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    return new SqliteSession(this.#writer!, this.#reader, this.#turns, options?.signal);
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SqliteSession).begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SqliteSession).commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as SqliteSession).rollback();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    await (connection as SqliteSession).rollback();
  }

  async destroy(): Promise<void> {
    this.#reader?.close();
    this.#writer?.close();
  }
}

/** What kysely calls a connection: one query, or one transaction, of one caller. */
class SqliteSession implements DatabaseConnection {
  readonly #writer: RetryingSqliteConnection;
  readonly #reader: RetryingSqliteConnection | undefined;
  readonly #turns: WriterTurns;
  /** The caller's deadline, if it gave one. */
  readonly #signal: AbortSignal | undefined;
  /** This session holds the writer's turn: inside a transaction. */
  #holding = false;

  constructor(writer: RetryingSqliteConnection, reader: RetryingSqliteConnection | undefined, turns: WriterTurns, signal: AbortSignal | undefined) {
    this.#writer = writer;
    this.#reader = reader;
    this.#turns = turns;
    this.#signal = signal;
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    if (this.#holding) return this.#writer.execute<R>(compiledQuery, this.#signal);
    if (this.#reader?.isReadonly(compiledQuery.sql)) return this.#reader.execute<R>(compiledQuery, this.#signal);
    await this.#turns.take(this.#signal);
    try {
      return await this.#writer.execute<R>(compiledQuery, this.#signal);
    } finally {
      this.#turns.give();
    }
  }

  async begin(): Promise<void> {
    await this.#turns.take(this.#signal);
    this.#holding = true;
    try {
      await this.#writer.execute(CompiledQuery.raw('begin immediate'), this.#signal);
    } catch (error) {
      this.#release();
      throw error;
    }
  }

  async commit(): Promise<void> {
    try {
      await this.#writer.execute(CompiledQuery.raw('commit'), this.#signal);
    } finally {
      // A failed COMMIT may leave the transaction open (kysely then rolls back) or have
      // rolled it back already (SQLITE_FULL, SQLITE_IOERR).
      if (!this.#writer.inTransaction) this.#release();
    }
  }

  async rollback(): Promise<void> {
    if (!this.#holding) return;
    try {
      // After a COMMIT that rolled back by itself, a second ROLLBACK would replace the real
      // error with "no transaction is active".
      if (this.#writer.inTransaction) await this.#writer.execute(CompiledQuery.raw('rollback'));
    } finally {
      this.#release();
    }
  }

  #release(): void {
    if (!this.#holding) return;
    this.#holding = false;
    this.#turns.give();
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    // An open better-sqlite3 iterator would hold its connection across awaits, between which
    // other statements run; nothing here streams from SQLite, so one chunk is enough.
    yield await this.executeQuery<R>(compiledQuery);
  }
}
