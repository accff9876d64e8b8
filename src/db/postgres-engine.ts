/**
 * kysely over a pg pool created on first use: the engine for a fleet. Each connection kysely
 * acquires with a deadline is bound to it (postgres-deadline-driver.ts); each pool client tells
 * WriteHealth what its writes did.
 */
import { Kysely, PostgresDialect, type Dialect, type KyselyConfig } from 'kysely';
import { DeadlineBoundDriver } from './postgres-deadline-driver.ts';
import type { Database } from './schema.ts';
import type { WriteHealth } from './write-health.ts';

export interface PostgresEngineOptions {
  /** Pool size. */
  poolSize: number;
  /** Upper bound of one statement, and of the wait for a connection, in ms. */
  timeout: number;
  health: WriteHealth;
  log: KyselyConfig['log'];
}

export function postgresKysely(url: string, { poolSize, timeout, health, log }: PostgresEngineOptions): Kysely<Database> {
  const base = new PostgresDialect({
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
        max: poolSize,
        connectionTimeoutMillis: timeout,
        statement_timeout: timeout,
        query_timeout: timeout + 500,
        idleTimeoutMillis: 30_000,
        types,
      });
      // An idle client losing its server must not crash the process; the next query reports it.
      pool.on('error', () => {});
      pool.on('connect', (client) => reportWrites(client, health));
      return pool;
    },
  });
  const dialect: Dialect = {
    createAdapter: () => base.createAdapter(),
    createDriver: () => new DeadlineBoundDriver(base.createDriver()),
    createIntrospector: (db) => base.createIntrospector(db),
    createQueryCompiler: () => base.createQueryCompiler(),
  };
  return new Kysely<Database>({ dialect, ...(log ? { log } : {}) });
}

type PgClient = import('pg').PoolClient;

/**
 * Wrap a new pool client's `query` to tell WriteHealth what writes did: a failure for want of
 * storage, or a write that committed. kysely sends transaction control as plain `begin`/`commit`/`rollback`.
 */
function reportWrites(client: PgClient, health: WriteHealth): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  let inTransaction = false;
  let pendingWrite = false;
  const observed = (...args: unknown[]): unknown => {
    const first = args[0];
    const text = typeof first === 'string' ? first : typeof (first as { text?: unknown })?.text === 'string' ? (first as { text: string }).text : '';
    const command = /^\s*(\w+)/.exec(text)?.[1]?.toLowerCase();
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
  client.query = observed as typeof client.query;
}
