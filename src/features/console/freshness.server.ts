/**
 * The console's data freshness: the last settled day that has figures, and when the
 * materializer last wrote (both from daily_stat); and the newest scheduled backup in BACKUP_DIR,
 * by the name the backup feature gives it (site-<UTC stamp>.sqlite|dump), when there is one.
 * Backups taken by hand elsewhere (`npm run -s backup -- --out FILE`) are not known here.
 */
import type { Kysely } from 'kysely';
import { scheduledBackups } from '../backup/scheduled.server.ts';
import type { Database } from '../../db/schema.ts';

export interface Freshness {
  /** The latest materialized UTC day, YYYY-MM-DD, or null before the first. */
  lastDay: string | null;
  /** Epoch ms of the last materialization, or null. */
  lastMaterializedAt: number | null;
  /** Materialized days in all. */
  days: number;
  /** The newest scheduled backup's file name and when it was taken (epoch ms), or null. */
  lastBackup: { file: string; at: number } | null;
}

/** The newest scheduled backup in `dir`; null when there is none or the folder cannot be read. */
async function lastBackup(dir: string | undefined): Promise<Freshness['lastBackup']> {
  if (dir === undefined) return null;
  const newest = (await scheduledBackups(dir).catch(() => []))[0];
  const stamp = newest && /^site-(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z\./.exec(newest);
  if (!newest || !stamp) return null;
  const [, y, mo, d, h, mi, se] = stamp.map(Number) as number[];
  return { file: newest, at: Date.UTC(y!, mo! - 1, d!, h!, mi!, se!) };
}

export async function freshness(db: Kysely<Database>, backupDir?: string): Promise<Freshness> {
  const row = await db
    .selectFrom('daily_stat')
    .select((eb) => [eb.fn.max('day').as('last_day'), eb.fn.max('materialized_at').as('last_at'), eb.fn.countAll<number>().as('days')])
    .executeTakeFirst();
  return {
    lastDay: (row?.last_day as string | null | undefined) ?? null,
    lastMaterializedAt: row?.last_at === null || row?.last_at === undefined ? null : Number(row.last_at),
    days: Number(row?.days ?? 0),
    lastBackup: await lastBackup(backupDir),
  };
}
