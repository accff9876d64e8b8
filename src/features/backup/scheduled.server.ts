/**
 * The scheduled backup's work, apart from its timer (src/app/jobs/backup.ts): one run takes a
 * backup into BACKUP_DIR under a name that sorts by time, then deletes all but the newest
 * BACKUP_KEEP of the backups it named (each with its manifest); files of any other name are
 * never touched.
 *
 * Which instance of a fleet runs it: the one(s) given BACKUP_CRON. On PostgreSQL a run also takes
 * a session advisory lock first and skips when another instance holds it, and skips a tick whose
 * backup is already in BACKUP_DIR, so instances sharing one directory (a network volume) back up
 * once per tick.
 */
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { DbHandle } from '../../db/create-db.ts';
import { takeBackup } from './backup.server.ts';
import { manifestPath, type Manifest } from './manifest.ts';

/** pg advisory lock key of the scheduled backup: "BKUP" in ASCII. */
export const BACKUP_LOCK_KEY = 0x42_4b_55_50;

const NAME = /^site-(\d{8}T\d{6}Z)\.(sqlite|dump)$/;

/** `site-20261127T011500Z.sqlite` (or `.dump`): sorts by the instant it was taken. */
export function scheduledBackupName(engine: DbHandle['engine'], atMs: number): string {
  const stamp = new Date(atMs).toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  return `site-${stamp}.${engine === 'sqlite' ? 'sqlite' : 'dump'}`;
}

/** The scheduled backups in `dir`, newest first. */
export async function scheduledBackups(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((name) => NAME.test(name)).sort().reverse();
}

/** Delete all but the newest `keep` scheduled backups (and their manifests); returns the names deleted. */
export async function pruneBackups(dir: string, keep: number): Promise<string[]> {
  const doomed = (await scheduledBackups(dir)).slice(keep);
  for (const name of doomed) {
    await rm(manifestPath(join(dir, name)), { force: true });
    await rm(join(dir, name), { force: true });
  }
  return doomed;
}

export type ScheduledOutcome =
  | { ran: true; file: string; manifest: Manifest; pruned: string[] }
  | { ran: false; reason: 'locked' | 'already-done' };

export interface ScheduledBackup {
  db: DbHandle;
  databaseUrl: string;
  dir: string;
  keep: number;
}

/** Hold the backup's advisory lock (PostgreSQL) around `work`; undefined when another instance holds it. */
async function withBackupLock<T>(db: DbHandle, work: () => Promise<T>): Promise<{ value: T } | undefined> {
  if (db.engine !== 'postgres') return { value: await work() };
  return db.kysely.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_lock(CAST(${BACKUP_LOCK_KEY} AS bigint)) AS locked`.execute(conn);
    if (rows[0]?.locked !== true) return undefined;
    try {
      return { value: await work() };
    } finally {
      await sql`SELECT pg_advisory_unlock(CAST(${BACKUP_LOCK_KEY} AS bigint))`.execute(conn);
    }
  });
}

/** One scheduled run for the tick at `tickMs` (minute resolution). Throws what the backup threw. */
export async function runScheduledBackup({ db, databaseUrl, dir, keep }: ScheduledBackup, tickMs: number, now: () => number = Date.now): Promise<ScheduledOutcome> {
  const outcome = await withBackupLock(db, async (): Promise<ScheduledOutcome> => {
    const newest = (await scheduledBackups(dir))[0];
    if (newest !== undefined && newest >= scheduledBackupName(db.engine, tickMs)) return { ran: false, reason: 'already-done' };
    const file = join(dir, scheduledBackupName(db.engine, now()));
    const manifest = await takeBackup(databaseUrl, file, now);
    return { ran: true, file, manifest, pruned: await pruneBackups(dir, keep) };
  });
  return outcome?.value ?? { ran: false, reason: 'locked' };
}
