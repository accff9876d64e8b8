/**
 * A throwaway PostgreSQL database per test file, on the run's server: the private cluster that
 * test/global-setup.ts starts, or the one TEST_PG_URL names (a role that may create databases).
 * Dropped afterwards. Tests that use it run everywhere unconditionally: no server is a failure,
 * not a skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';

/** The URL of a database on the run's server as a role that may create databases. */
export function pgAdminUrl(): string {
  return inject('pgAdminUrl');
}

export interface TempDatabase {
  url: string;
  drop(): Promise<void>;
}

export async function createTempDatabase(prefix = 't'): Promise<TempDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const adminUrl = pgAdminUrl();
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      try {
        await client.query(`drop database if exists ${name} with (force)`);
      } finally {
        await client.end();
      }
    },
  };
}

export interface MigratedDatabase {
  url: string;
  /** An open handle on it (as the application opens one). */
  handle: DbHandle;
  /** Close the handle, then drop the database. */
  drop(): Promise<void>;
}

/** A throwaway database (see createTempDatabase) with every migration applied. */
export async function createMigratedDatabase(prefix = 't'): Promise<MigratedDatabase> {
  const temp = await createTempDatabase(prefix);
  const handle = createDb(temp.url);
  const drop = async () => {
    await handle.close();
    await temp.drop();
  };
  const migration = await migrateToLatest(handle.kysely, handle.engine);
  if (migration.error) {
    await drop();
    throw migration.error;
  }
  return { url: temp.url, handle, drop };
}

/**
 * A throwaway database for the surrounding `describe`: created before its tests, dropped after.
 * Returns a getter (the database exists only once the hook has run).
 */
export function useTempDatabase(prefix = 't'): () => TempDatabase {
  let temp: TempDatabase | undefined;
  beforeAll(async () => {
    temp = await createTempDatabase(prefix);
  });
  afterAll(async () => {
    await temp?.drop();
  });
  return () => {
    if (!temp) throw new Error('the temporary database is created in beforeAll');
    return temp;
  };
}
