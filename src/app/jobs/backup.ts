/**
 * The scheduled backup (BACKUP_CRON, UTC): started by the composition root after listening, on
 * instances with JOBS_ENABLED and BACKUP_CRON set; nothing otherwise. Each tick backs up into
 * BACKUP_DIR and keeps the newest BACKUP_KEEP (src/features/backup/scheduled.server.ts, which also
 * says how one instance of a fleet is chosen). Runs never overlap in a process. The instant of the
 * last success is the gauge `backup_last_success_timestamp_seconds`, set at start from the newest
 * backup already in BACKUP_DIR, so a restart does not look like a backup gone stale.
 */
import { join } from 'node:path';
import type { Meter } from '../../lib/meter.ts';
import { readManifest } from '../../features/backup/manifest.ts';
import { runScheduledBackup, scheduledBackups, type ScheduledOutcome } from '../../features/backup/scheduled.server.ts';
import type { Services } from '../services.ts';
import { cronTask } from './schedule.ts';

export const BACKUP_GAUGE = 'backup_last_success_timestamp_seconds';

export interface BackupJobDeps {
  services: Pick<Services, 'config' | 'db' | 'log'>;
  meter: Meter;
  /** Clock (tests). */
  now?: () => number;
}

export interface BackupJobHandle {
  /** Settles once the gauge has been set from BACKUP_DIR. */
  ready: Promise<void>;
  /** Run one backup now, as a tick would (tests, and the tick itself). */
  runNow(): Promise<ScheduledOutcome | undefined>;
  /** Stop scheduling and wait for a run in progress. */
  stop(): Promise<void>;
}

export function startBackups({ services, meter, now = Date.now }: BackupJobDeps): BackupJobHandle {
  const { config, db } = services;
  if (!config.JOBS_ENABLED || config.BACKUP_CRON === undefined) {
    return { ready: Promise.resolve(), runNow: async () => undefined, stop: async () => {} };
  }
  const log = services.log.child({ job: 'backup' });
  const dir = config.BACKUP_DIR;
  const job = { db, databaseUrl: config.DATABASE_URL, dir, keep: config.BACKUP_KEEP };
  let running: Promise<ScheduledOutcome | undefined> | undefined;
  let stopped = false;

  const runNow = (): Promise<ScheduledOutcome | undefined> => {
    if (stopped) return Promise.resolve(undefined);
    running ??= runScheduledBackup(job, Math.floor(now() / 60_000) * 60_000, now)
      .then((outcome) => {
        if (outcome.ran) {
          meter.set(BACKUP_GAUGE, Date.parse(outcome.manifest.takenAt) / 1000);
          log.info({ file: outcome.file, bytes: outcome.manifest.bytes, pruned: outcome.pruned }, 'backup taken');
        } else {
          log.info({ reason: outcome.reason }, 'backup skipped');
        }
        return outcome;
      })
      .catch((error: unknown) => {
        log.error({ err: error, dir }, 'backup failed');
        return undefined;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const ready = (async () => {
    const newest = (await scheduledBackups(dir))[0];
    const manifest = newest === undefined ? undefined : await readManifest(join(dir, newest));
    if (manifest !== undefined && !('problem' in manifest)) meter.set(BACKUP_GAUGE, Date.parse(manifest.takenAt) / 1000);
  })().catch((error: unknown) => log.warn({ err: error, dir }, 'cannot read BACKUP_DIR'));

  const task = cronTask(config.BACKUP_CRON, 'backup', runNow, log);
  return {
    ready,
    runNow,
    async stop() {
      stopped = true;
      await task.destroy();
      await running;
    },
  };
}
