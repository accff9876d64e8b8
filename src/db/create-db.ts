/**
 * The data layer's one factory: kysely over better-sqlite3 (default) or PostgreSQL, chosen by
 * DATABASE_URL. Nothing connects at import time; `createDb` opens lazily on first query and the
 * returned handle's `close()` releases everything.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect, SqliteIntrospector, SqliteQueryCompiler, sql, type Dialect, type KyselyConfig, type LogEvent, type PostgresPool } from 'kysely';
import type { Database } from './schema.ts';
import { ConcurrentSqliteAdapter, RetryingSqliteDriver } from './sqlite-driver.ts';
import { DeadlineExceeded, isWriteFailure } from './storage-errors.ts';

export type Engine = 'sqlite' | 'postgres';

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
   * Run `work` with a deadline `ms` from now, at the data layer: waits for a SQLite lock, the
   * SQLite writer's turn or a PostgreSQL pool connection end at the deadline, no statement of
   * `work` but ROLLBACK starts after it, and the returned promise rejects with DeadlineExceeded
   * at the latest 150 ms past it. So work the caller gave up on cannot commit later.
   */
  withDeadline<T>(ms: number, work: () => Promise<T>): Promise<T>;
  /** Milliseconds left of the current `withDeadline` scope (never below 0), or undefined outside one. */
  remainingMs(): number | undefined;
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
function errorLog(options: DbOptions): Pick<KyselyConfig, 'log'> {
  const onError = options.onQueryError;
  if (onError === undefined) return {};
  return {
    log: (event: LogEvent) => {
      if (event.level === 'error') onError(event.error);
    },
  };
}

/**
 * How long a SQLite statement waits for another connection's lock, retrying on timers (see
 * sqlite-driver.ts; the event loop runs meanwhile): below the 5 s in which a write endpoint
 * must answer (502 rather than a hang, docs/interface.md section 3).
 */
export const SQLITE_LOCK_WAIT_MS = 3_750;

/** How long after a deadline `withDeadline` stops waiting for work that did not end itself. */
const DEADLINE_BACKSTOP_MS = 150;

export function engineOf(url: string): Engine {
  return /^postgres(ql)?:\/\//i.test(url) ? 'postgres' : 'sqlite';
}

/** `file:` URL or plain path to an absolute path; `:memory:` stays as it is. */
export function sqlitePath(url: string): string {
  if (url === ':memory:') return url;
  if (url.startsWith('file:')) {
    return url.startsWith('file://') ? fileURLToPath(url) : resolve(url.slice('file:'.length).split('?')[0]!);
  }
  return resolve(url);
}

/** What both engines' connection factories need: the statement bound and the deadline scope. */
interface EngineContext {
  options: DbOptions;
  /** Upper bound of one statement, in ms. */
  timeout: number;
  /** The current `withDeadline` scope's deadline (epoch ms), if any. */
  deadline: () => number | undefined;
  health: WriteHealth;
}

/** kysely over better-sqlite3, opened on first use, with the retrying, non-blocking driver. */
function sqliteKysely(path: string, { options, timeout, deadline, health }: EngineContext): Kysely<Database> {
  const driver = new RetryingSqliteDriver({
    open: async () => {
      const { default: SQLite } = await import('better-sqlite3');
      // busy_timeout 0: SQLite would wait for a lock by sleeping inside the call, on the event
      // loop; the driver retries on timers instead.
      const conn = new SQLite(path, { timeout: 0 });
      // WAL lets readers run beside the one writer; with synchronous=NORMAL a committed
      // transaction survives a process kill (FULL adds power-loss durability).
      conn.pragma('journal_mode = WAL');
      conn.pragma(`synchronous = ${options.sqliteSynchronous ?? 'NORMAL'}`);
      conn.pragma('foreign_keys = ON');
      // A 2 MB page cache ran the 10M-event rollup 1.5x faster than the 16 MB default here.
      conn.pragma('cache_size = -2000');
      return conn;
    },
    separateReader: path !== ':memory:',
    lockWaitMs: Math.min(timeout, SQLITE_LOCK_WAIT_MS),
    deadline,
    health,
  });
  const dialect: Dialect = {
    createAdapter: () => new ConcurrentSqliteAdapter(),
    createDriver: () => driver,
    createIntrospector: (kysely) => new SqliteIntrospector(kysely),
    createQueryCompiler: () => new SqliteQueryCompiler(),
  };
  return new Kysely<Database>({ dialect, ...errorLog(options) });
}

/** kysely over a pg pool created on first use, its clients bound by the deadline scope. */
function postgresKysely(url: string, { options, timeout, deadline, health }: EngineContext): Kysely<Database> {
  return new Kysely<Database>({
    dialect: new PostgresDialect({
      pool: async () => {
        const { default: pg } = await import('pg');
        // int8 (count, bigint columns) and numeric (sum of bigint) as JS numbers: our values
        // stay far below 2^53 (revenue in cents, counts per day).
        const types = {
          getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
            oid === 20 || oid === 1700 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
        };
        const pool = new pg.Pool({
          connectionString: url,
          max: options.poolSize ?? 10,
          connectionTimeoutMillis: timeout,
          statement_timeout: timeout,
          query_timeout: timeout + 500,
          idleTimeoutMillis: 30_000,
          types,
        });
        // An idle client losing its server must not crash the process; the next query reports it.
        pool.on('error', () => {});
        pool.on('connect', (client) => guardClient(client, deadline, health));
        return withDeadlineOnConnect(pool, deadline);
      },
    }),
    ...errorLog(options),
  });
}

export function createDb(url: string, options: DbOptions = {}): DbHandle {
  const engine = engineOf(url);
  const scope = new AsyncLocalStorage<{ deadline: number }>();
  const deadline = () => scope.getStore()?.deadline;
  const health = new WriteHealth();
  const context: EngineContext = { options, timeout: options.statementTimeoutMs ?? 5_000, deadline, health };
  let db: Kysely<Database>;
  let target: string;
  if (engine === 'sqlite') {
    const path = sqlitePath(url);
    target = `sqlite:${path}`;
    db = sqliteKysely(path, context);
  } else {
    const parsed = new URL(url);
    target = `postgres://${parsed.host}${parsed.pathname}`;
    db = postgresKysely(url, context);
  }

  async function probeWrite(): Promise<void> {
    const now = Date.now();
    await db
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
      const check = failure === undefined ? sql`select 1`.execute(db) : probeWrite();
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          check,
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (error) {
        throw failure === undefined ? error : new Error(`writes are failing: ${failure.message}`, { cause: error });
      } finally {
        clearTimeout(timer);
      }
    },
    withDeadline(ms, work) {
      const at = Date.now() + ms;
      // The data layer ends its own waits at the deadline with the precise cause (a lock, a
      // statement timeout, no free connection); this timer, a little later, is the backstop
      // for a server that accepted the connection and went silent.
      let timer: NodeJS.Timeout | undefined;
      const attempt = scope.run({ deadline: at }, work);
      // If the deadline wins, the work's own failure arrives later with no one awaiting it.
      attempt.catch(() => {});
      return Promise.race([
        attempt,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new DeadlineExceeded(`the database did not answer within ${ms} ms`)), ms + DEADLINE_BACKSTOP_MS);
        }),
      ]).finally(() => clearTimeout(timer));
    },
    remainingMs() {
      const at = deadline();
      return at === undefined ? undefined : Math.max(0, at - Date.now());
    },
    close: () => db.destroy(),
  };
}

/**
 * Whether writes currently work, as far as the last write tells: set by a write that failed
 * for want of storage, cleared by one that committed.
 */
class WriteHealth {
  failure: { code: string; message: string; at: number } | undefined;
  wrote(): void {
    this.failure = undefined;
  }
  failed(error: unknown): void {
    if (isWriteFailure(error)) {
      const { code, message } = error as { code: string; message: string };
      this.failure = { code, message: `${code}: ${message}`, at: Date.now() };
    }
  }
}

type PgPool = import('pg').Pool;
type PgClient = import('pg').PoolClient;

/**
 * kysely asks the pool for a client without a time limit of its own, and pg's
 * connectionTimeoutMillis is per pool. Inside a `withDeadline` scope the wait for a client ends
 * at the deadline; a client that arrives later goes straight back to the pool unused.
 */
function withDeadlineOnConnect(pool: PgPool, deadline: () => number | undefined): PostgresPool {
  return {
    options: pool.options,
    end: () => pool.end(),
    connect() {
      const at = deadline();
      if (at === undefined) return pool.connect();
      const waitMs = Math.max(0, at - Date.now());
      return new Promise<PgClient>((resolve, reject) => {
        let late = false;
        const timer = setTimeout(() => {
          late = true;
          reject(new DeadlineExceeded(`no database connection became available within ${waitMs} ms`));
        }, waitMs);
        pool.connect().then(
          (client) => {
            clearTimeout(timer);
            if (late) client.release();
            else resolve(client);
          },
          (error: unknown) => {
            clearTimeout(timer);
            if (!late) reject(error as Error);
          },
        );
      });
    },
  };
}

/**
 * Wrap a new pool client's `query`: refuse any statement but ROLLBACK once the caller's deadline
 * has passed (so a COMMIT after a lock wait the caller gave up on never happens), and tell
 * WriteHealth what writes did. kysely sends transaction control as plain `begin`/`commit`/`rollback`.
 */
function guardClient(client: PgClient, deadline: () => number | undefined, health: WriteHealth): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let inTransaction = false;
  let pendingWrite = false;
  const guarded = (...args: unknown[]): unknown => {
    const first = args[0];
    const text = typeof first === 'string' ? first : typeof (first as { text?: unknown })?.text === 'string' ? (first as { text: string }).text : '';
    const command = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase();
    const at = deadline();
    if (at !== undefined && Date.now() >= at && command !== 'rollback') {
      return Promise.reject(new DeadlineExceeded('the deadline passed before the statement could run; nothing was written'));
    }
    const result = query(...args);
    if (result instanceof Promise) {
      result.then(
        (res: { command?: string; rowCount?: number | null }) => {
          if (command === 'begin' || command === 'start') {
            inTransaction = true;
          } else if (command === 'commit' || command === 'rollback') {
            if (command === 'commit' && res.command === 'COMMIT' && pendingWrite) health.wrote();
            inTransaction = false;
            pendingWrite = false;
          } else if (['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(res.command ?? '') && (res.rowCount ?? 0) > 0) {
            if (inTransaction) pendingWrite = true;
            else health.wrote();
          }
        },
        (error: unknown) => health.failed(error),
      );
    }
    return result;
  };
  client.query = guarded as typeof client.query;
}
