/**
 * A throwaway PostgreSQL database per test file, on the run's server: the private cluster that
 * test/global-setup.ts starts, or the one TEST_PG_URL names (a role that may create databases).
 * Dropped afterwards. Tests that use it run everywhere unconditionally: no server is a failure,
 * not a skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';

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
