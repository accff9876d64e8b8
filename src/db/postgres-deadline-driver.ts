/**
 * kysely's PostgreSQL driver with the caller's deadline on each connection (deadline.ts).
 * kysely hands the AbortSignal of `within` to `acquireConnection` and itself ends the wait for a
 * pooled client there (releasing a client that arrives later); this wrapper binds the signal
 * to the connection it returns, so that once it has fired no statement but ROLLBACK is sent:
 * a COMMIT after a lock wait the caller gave up on never happens. BEGIN and COMMIT go through the
 * bound connection too (kysely's driver sends them with `connection.executeQuery`); ROLLBACK and
 * the release go to kysely's own connection, whose private methods they use. Nothing here uses
 * savepoints, so the wrapper offers none (kysely then says they are not supported).
 *
 * A statement already at the server when the deadline fires is cancelled there, through kysely's
 * own `cancelQuery` (`pg_cancel_backend` on a control connection of its own, so a full pool
 * does not delay it): otherwise it would run on up to its statement timeout, and a lone write the
 * caller was told had failed could still commit. A cancel that arrives after the statement ended
 * finds another query id (or none) and does nothing, as kysely checks.
 */
import type { AbortableOperationOptions, CompiledQuery, ControlConnectionProvider, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';
import { DeadlineExceeded } from './storage-errors.ts';

/** kysely's PostgreSQL connection: what it offers to cancel the statement it is running. */
type Cancellable = DatabaseConnection & Required<Pick<DatabaseConnection, 'cancelQuery' | 'collectSessionInfo'>>;

const cancellable = (connection: DatabaseConnection): connection is Cancellable => typeof connection.cancelQuery === 'function' && typeof connection.collectSessionInfo === 'function';

/**
 * kysely's connection cancels on a client of its own (pg's Pool.Client with the pool's settings)
 * and asks for a pooled one only without it, which pg's Pool always has; this is never called then.
 */
const noControlConnection: ControlConnectionProvider = () => Promise.reject(new Error('no control connection: the cancel uses a client of its own'));

class DeadlineBoundConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  readonly #signal: AbortSignal;

  constructor(inner: DatabaseConnection, signal: AbortSignal) {
    this.inner = inner;
    this.#signal = signal;
  }

  executeQuery<R>(compiledQuery: CompiledQuery, options?: AbortableOperationOptions): Promise<QueryResult<R>> {
    if (this.#refuses(compiledQuery.sql)) return Promise.reject(refused());
    const running = this.inner.executeQuery<R>(compiledQuery, options);
    const { inner } = this;
    if (!cancellable(inner) || isRollback(compiledQuery.sql)) return running;
    // The cancel's own failure (the server gone, the statement already over) changes nothing:
    // the caller has its answer from the deadline, and the statement its statement timeout.
    const cancel = () => void inner.cancelQuery(noControlConnection).catch(() => {});
    this.#signal.addEventListener('abort', cancel, { once: true });
    return running.finally(() => this.#signal.removeEventListener('abort', cancel));
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize: number, options?: AbortableOperationOptions): AsyncIterableIterator<QueryResult<R>> {
    if (this.#refuses(compiledQuery.sql)) throw refused();
    yield* this.inner.streamQuery<R>(compiledQuery, chunkSize, options);
  }

  #refuses(sql: string): boolean {
    return this.#signal.aborted && !isRollback(sql);
  }
}

const isRollback = (sql: string) => /^\s*rollback\b/i.test(sql);

const refused = () => new DeadlineExceeded('the deadline passed before the statement could run; nothing was written');

const unwrap = (connection: DatabaseConnection): DatabaseConnection => (connection instanceof DeadlineBoundConnection ? connection.inner : connection);

export class DeadlineBoundDriver implements Driver {
  readonly #inner: Driver;

  constructor(inner: Driver) {
    this.#inner = inner;
  }

  init(options?: AbortableOperationOptions): Promise<void> {
    return this.#inner.init(options);
  }

  acquireConnection(options?: AbortableOperationOptions): Promise<DatabaseConnection> {
    const acquiring = this.#inner.acquireConnection(options);
    const signal = options?.signal;
    if (signal === undefined) return acquiring;
    return new Promise((resolve, reject) => {
      acquiring.then(
        // The backend's pid, which a cancel names: pg's client already knows it (no statement is sent).
        async (connection) => {
          if (cancellable(connection)) await connection.collectSessionInfo().catch(() => {});
          resolve(new DeadlineBoundConnection(connection, signal));
        },
        (error: unknown) => {
          // After the deadline kysely has answered the caller and would print a late failure
          // to the console; the pool's own error (a connect timeout) says nothing more.
          if (!signal.aborted) reject(error as Error);
        },
      );
    });
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#inner.rollbackTransaction(unwrap(connection));
  }

  releaseConnection(connection: DatabaseConnection, options?: AbortableOperationOptions): Promise<void> {
    return this.#inner.releaseConnection(unwrap(connection), options);
  }

  destroy(options?: AbortableOperationOptions): Promise<void> {
    return this.#inner.destroy(options);
  }
}
