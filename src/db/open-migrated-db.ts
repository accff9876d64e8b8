/**
 * The one way every entry point (the server's composition root and each command in jobs/cli)
 * gets a database: open the handle DATABASE_URL names and bring its schema up to date. Either
 * the caller gets a migrated handle, or one `DatabaseOpenError` whose message names the target
 * and the reason, and nothing is left open.
 */
import type { MigrationResult } from 'kysely/migration';
import { createDb, type DbHandle, type DbOptions } from './create-db.ts';
import { DatabaseOpenError } from './database-open-error.ts';
import { migrateToLatest } from './migrations/index.ts';

/** The part of the validated configuration (src/app/config.ts) the database needs. */
export interface DbConfig {
  DATABASE_URL: string;
  SQLITE_SYNCHRONOUS?: 'NORMAL' | 'FULL';
}

export interface OpenOptions extends Omit<DbOptions, 'sqliteSynchronous'> {
  /** Called for each migration kysely reports (applied now, or not run because an earlier one failed). */
  onMigration?: (result: MigrationResult) => void;
}

export async function openMigratedDb(config: DbConfig, options: OpenOptions = {}): Promise<DbHandle> {
  const { onMigration, ...dbOptions } = options;
  const db = createDb(config.DATABASE_URL, { ...dbOptions, ...(config.SQLITE_SYNCHRONOUS ? { sqliteSynchronous: config.SQLITE_SYNCHRONOUS } : {}) });
  let failure: unknown;
  try {
    // Migrator returns its failure instead of throwing; opening the SQLite file may still throw.
    const { error, results = [] } = await migrateToLatest(db.kysely, db.engine);
    for (const result of results) onMigration?.(result);
    failure = error;
  } catch (error) {
    failure = error ?? new Error('unknown failure');
  }
  if (failure === undefined) return db;
  await db.close().catch(() => {});
  throw new DatabaseOpenError(db.target, failure);
}
