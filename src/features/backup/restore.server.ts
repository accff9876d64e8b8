/**
 * Restoring a verified backup into the database DATABASE_URL names: only into a missing or empty
 * one unless forced, never while another process holds it, never from a newer schema (this code
 * could not run on it); an older one is migrated. Then the erasure ledger is replayed, so nobody
 * erased after the backup was taken comes back (src/features/contact/erasure-ledger.server.ts).
 *
 * SQLite: the backup is copied beside the target under a temporary name, migrated and replayed
 * there, and only then renamed over the target: a failed restore leaves the target as it was.
 * PostgreSQL: pg_restore in one transaction, then the migrations and the replay in place.
 */
import { copyFile, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { sql } from 'kysely';
import { createDb } from '../../db/create-db.ts';
import { engineOf, sqlitePath } from '../../db/database-url.ts';
import { migrateToLatest } from '../../db/migrations/index.ts';
import { readLedger, replayErasures, type ReplayResult } from '../contact/erasure-ledger.server.ts';
import { BackupError, verifyBackup, type Verified } from './backup.server.ts';
import { syncPath } from './manifest.ts';
import { prepareTarget, restoreDump } from './postgres-backup.server.ts';
import { BackupToolError } from './postgres-tools.server.ts';

export interface RestoreOptions {
  databaseUrl: string;
  file: string;
  /** Replace a database that holds tables. */
  force: boolean;
  /** The erasure ledger to replay (none: nothing to replay). */
  ledger: string | undefined;
}

export interface RestoreResult {
  verified: Verified;
  /** Migrations applied after the restore (the backup was older). */
  applied: string[];
  /** The ledger's replay; undefined when there is no ledger file. */
  replay: ReplayResult | undefined;
}

/** Migrate the restored database at `url` and replay the ledger into it. */
async function finish(url: string, ledgerPath: string | undefined): Promise<Omit<RestoreResult, 'verified'>> {
  const ledger = ledgerPath === undefined ? undefined : await readLedger(ledgerPath);
  const db = createDb(url);
  try {
    const { error, results = [] } = await migrateToLatest(db.kysely, db.engine);
    if (error) throw error;
    const applied = results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
    const replay = ledger === undefined ? undefined : await replayErasures(db, ledger);
    // Everything into the main file before it is renamed without its -wal (SQLite).
    if (db.engine === 'sqlite') await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db.kysely);
    return { applied, replay };
  } finally {
    await db.close();
  }
}

/**
 * Whether another process has the SQLite file open. A WAL-mode connection keeps a shared lock on
 * the file while it is open, so an exclusive lock taken with locking_mode=EXCLUSIVE fails at once
 * (busy timeout 0) while a server runs on it.
 */
async function sqliteInUse(path: string): Promise<boolean> {
  const { default: SQLite } = await import('better-sqlite3');
  const db = new SQLite(path, { timeout: 0, fileMustExist: true });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
    return false;
  } catch (error) {
    if ((error as { code?: string }).code === 'SQLITE_BUSY' || (error as { code?: string }).code === 'SQLITE_LOCKED') return true;
    throw error;
  } finally {
    db.close();
  }
}

async function sqliteTables(path: string): Promise<number> {
  const { default: SQLite } = await import('better-sqlite3');
  const db = new SQLite(path, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("select count(*) as n from sqlite_master where type = 'table'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function restoreSqlite(target: string, { file, force, ledger }: RestoreOptions): Promise<Omit<RestoreResult, 'verified'>> {
  if (target === ':memory:') throw new BackupError('DATABASE_URL is :memory:, which outlives no process: nothing to restore into', 'exists');
  const size = await stat(target).then((s) => s.size, () => undefined);
  if (size !== undefined && size > 0) {
    if (await sqliteInUse(target)) throw new BackupError(`${target} is open in another process (a running server?): stop it, then restore`, 'busy');
    if (!force && (await sqliteTables(target)) > 0) throw new BackupError(`${target} already holds a database: restore into a missing or empty one, or pass --force to replace it`, 'exists');
  }
  const staging = `${target}.restore-${process.pid}`;
  try {
    await copyFile(file, staging);
    const outcome = await finish(staging, ledger);
    // Checked again just before the swap: a server may have started meanwhile.
    if (size !== undefined && size > 0 && (await sqliteInUse(target))) throw new BackupError(`${target} was opened by another process during the restore: stop it, then restore`, 'busy');
    await Promise.all(['-wal', '-shm', '-journal'].map((suffix) => rm(`${target}${suffix}`, { force: true })));
    await syncPath(staging);
    await rename(staging, target);
    await syncPath(dirname(target));
    return outcome;
  } finally {
    await Promise.all(['', '-wal', '-shm', '-journal'].map((suffix) => rm(`${staging}${suffix}`, { force: true })));
  }
}

async function restorePostgres(url: string, { file, force, ledger }: RestoreOptions): Promise<Omit<RestoreResult, 'verified'>> {
  const target = await prepareTarget(url);
  if (target.otherSessions > 0) throw new BackupError(`the database has ${target.otherSessions} other session(s) (a running server?): stop them, then restore`, 'busy');
  if (target.tables > 0 && !force) throw new BackupError('the database already holds tables: restore into a missing or empty one, or pass --force to replace it', 'exists');
  await restoreDump(url, file, target.tables > 0);
  return finish(url, ledger);
}

export async function restoreBackup(options: RestoreOptions): Promise<RestoreResult> {
  const verified = await verifyBackup(options.file);
  const engine = engineOf(options.databaseUrl);
  const { manifest, schema } = verified;
  if (manifest.engine !== engine) throw new BackupError(`${options.file} is a ${manifest.engine} backup; DATABASE_URL names a ${engine} database`, 'mismatch');
  if (schema.relation === 'newer') {
    throw new BackupError(`${options.file} comes from a newer schema (migrations ${schema.unknown.join(', ')} are unknown here): restore it with the version that made it`, 'newer');
  }
  try {
    const outcome = engine === 'sqlite' ? await restoreSqlite(sqlitePath(options.databaseUrl), options) : await restorePostgres(options.databaseUrl, options);
    return { verified, ...outcome };
  } catch (error) {
    if (error instanceof BackupToolError) throw new BackupError(error.message, 'unavailable');
    throw error;
  }
}
