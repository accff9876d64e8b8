/**
 * The data layer's one factory: kysely over better-sqlite3 (default) or PostgreSQL, chosen by
 * DATABASE_URL. Nothing connects at import time; `createDb` opens lazily on first query and the
 * returned handle's `close()` releases everything.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kysely, PostgresDialect, SqliteDialect, sql, type SqliteDatabase } from 'kysely';
import type { Database } from './schema.ts';

export type Engine = 'sqlite' | 'postgres';

export interface DbHandle {
  db: Kysely<Database>;
  engine: Engine;
  /** Human-readable target without credentials, for logs. */
  target: string;
  /** Resolves when the database answers a trivial query within `timeoutMs`; rejects otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface DbOptions {
  /** SQLite `synchronous` pragma. */
  sqliteSynchronous?: 'NORMAL' | 'FULL';
  /** Upper bound for any one statement (PostgreSQL statement_timeout, SQLite busy_timeout). */
  statementTimeoutMs?: number;
  /** PostgreSQL pool size. */
  poolSize?: number;
}

/**
 * How long a SQLite statement waits for another connection's write lock. better-sqlite3 waits
 * synchronously, so this is also the longest a write can stall: kept below the 5 s in which a
 * write endpoint must answer (502 rather than a hang, issue 5).
 */
export const SQLITE_BUSY_TIMEOUT_MS = 3_750;

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

/**
 * kysely's SQLite driver prepares every statement anew; preparing was about 10 % of a stored
 * contact submission. Queries are built from a handful of shapes, so keep their prepared
 * statements (bounded: a flood of distinct SQL simply starts over). better-sqlite3 runs each
 * statement to completion synchronously, so one statement is never in use twice at once.
 */
function withStatementCache(conn: import('better-sqlite3').Database): SqliteDatabase {
  const statements = new Map<string, import('better-sqlite3').Statement>();
  return {
    close: () => conn.close(),
    prepare(sqlText: string) {
      let statement = statements.get(sqlText);
      if (!statement) {
        if (statements.size >= 256) statements.clear();
        statement = conn.prepare(sqlText);
        statements.set(sqlText, statement);
      }
      return statement;
    },
  };
}

export function createDb(url: string, options: DbOptions = {}): DbHandle {
  const engine = engineOf(url);
  const timeout = options.statementTimeoutMs ?? 5_000;
  let db: Kysely<Database>;
  let target: string;

  if (engine === 'sqlite') {
    const path = sqlitePath(url);
    target = `sqlite:${path}`;
    db = new Kysely<Database>({
      dialect: new SqliteDialect({
        database: async () => {
          const { default: SQLite } = await import('better-sqlite3');
          if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
          const conn = new SQLite(path, { timeout: Math.min(timeout, SQLITE_BUSY_TIMEOUT_MS) });
          // WAL lets readers run beside the one writer; with synchronous=NORMAL a committed
          // transaction survives a process kill (FULL adds power-loss durability).
          conn.pragma('journal_mode = WAL');
          conn.pragma(`synchronous = ${options.sqliteSynchronous ?? 'NORMAL'}`);
          conn.pragma('foreign_keys = ON');
          // A 2 MB page cache ran the 10M-event rollup 1.5x faster than the 16 MB default here.
          conn.pragma('cache_size = -2000');
          return withStatementCache(conn);
        },
      }),
    });
  } else {
    const parsed = new URL(url);
    target = `postgres://${parsed.host}${parsed.pathname}`;
    db = new Kysely<Database>({
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
          return pool;
        },
      }),
    });
  }

  return {
    db,
    engine,
    target,
    async ping(timeoutMs = 2_000) {
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([
          sql`select 1`.execute(db),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error(`database did not answer within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } finally {
        clearTimeout(timer);
      }
    },
    close: () => db.destroy(),
  };
}
