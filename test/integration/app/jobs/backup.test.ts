/**
 * The scheduled backup: each run backs up into BACKUP_DIR and keeps the newest BACKUP_KEEP (with
 * their manifests, and nothing else touched); a tick already done is skipped; the gauge of the
 * last success is set by a run and, after a restart, from the newest backup in the directory. On
 * PostgreSQL a run skips while another instance holds the backup's advisory lock.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKUP_GAUGE, startBackups } from '../../../../src/app/jobs/backup.ts';
import { BACKUP_LOCK_KEY, runScheduledBackup } from '../../../../src/features/backup/scheduled.server.ts';
import type { Labels, Meter } from '../../../../src/lib/meter.ts';
import { openTestDb, testServices, type TestDb } from '../../../helpers/contact-fixtures.ts';

/** A Meter that remembers the last value of each gauge (the narrow interface the job is given). */
function gauges(): Meter & { values: Map<string, number> } {
  const values = new Map<string, number>();
  return { values, count() {}, observe() {}, set: (name: string, value: number, _labels?: Labels) => void values.set(name, value) };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'scheduled-backup-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('scheduled backup on sqlite', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb('sqlite');
  });
  afterAll(async () => {
    await db.dispose();
  });

  it('keeps the newest BACKUP_KEEP backups, skips a tick already done, and exports the last success', async () => {
    const backups = join(dir, 'sqlite');
    await import('node:fs/promises').then((fs) => fs.mkdir(backups));
    await writeFile(join(backups, 'notes.txt'), 'not a backup\n');
    let clock = Date.UTC(2026, 10, 27, 1, 15, 0);
    const services = testServices(db.handle, { DATABASE_URL: db.url, JOBS_ENABLED: 'true', BACKUP_CRON: '0 0 1 1 *', BACKUP_DIR: backups, BACKUP_KEEP: '2' });
    const meter = gauges();
    const job = startBackups({ services, meter, now: () => clock });
    await job.ready;
    expect(meter.values.has(BACKUP_GAUGE)).toBe(false);
    const taken: string[] = [];
    for (let i = 0; i < 4; i++) {
      const outcome = await job.runNow();
      expect(outcome).toMatchObject({ ran: true });
      if (outcome?.ran) taken.push(outcome.file);
      expect(meter.values.get(BACKUP_GAUGE)).toBe(clock / 1000);
      clock += 60_000;
    }
    // The same minute again: another instance sharing the directory did this tick.
    clock -= 60_000;
    expect(await job.runNow()).toEqual({ ran: false, reason: 'already-done' });
    await job.stop();
    expect((await readdir(backups)).sort()).toEqual(
      ['notes.txt', 'site-20261127T011700Z.sqlite', 'site-20261127T011700Z.sqlite.manifest.json', 'site-20261127T011800Z.sqlite', 'site-20261127T011800Z.sqlite.manifest.json'].sort(),
    );
    expect(taken.map((file) => file.slice(backups.length + 1))).toEqual(['site-20261127T011500Z.sqlite', 'site-20261127T011600Z.sqlite', 'site-20261127T011700Z.sqlite', 'site-20261127T011800Z.sqlite']);

    // After a restart the gauge reads the newest backup's instant at once.
    const restarted = gauges();
    const again = startBackups({ services, meter: restarted });
    await again.ready;
    await again.stop();
    expect(restarted.values.get(BACKUP_GAUGE)).toBe(Date.UTC(2026, 10, 27, 1, 18, 0) / 1000);
  });

  it('takes no backup without BACKUP_CRON or with JOBS_ENABLED=false', async () => {
    for (const env of [{ JOBS_ENABLED: 'true' }, { JOBS_ENABLED: 'false', BACKUP_CRON: '* * * * *' }]) {
      const job = startBackups({ services: testServices(db.handle, { DATABASE_URL: db.url, BACKUP_DIR: dir, ...env }), meter: gauges() });
      expect(await job.runNow()).toBeUndefined();
      await job.stop();
    }
  });
});

describe('scheduled backup on postgres', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await openTestDb('postgres');
  });
  afterAll(async () => {
    await db.dispose();
  });

  it('skips the run while another instance holds the backup lock, and runs once it is free', async () => {
    const backups = join(dir, 'postgres');
    await import('node:fs/promises').then((fs) => fs.mkdir(backups));
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    const job = { db: db.handle, databaseUrl: db.url, dir: backups, keep: 3 };
    try {
      await other.query('select pg_advisory_lock($1::bigint)', [BACKUP_LOCK_KEY]);
      expect(await runScheduledBackup(job, Date.now())).toEqual({ ran: false, reason: 'locked' });
      expect(await readdir(backups)).toEqual([]);
      await other.query('select pg_advisory_unlock($1::bigint)', [BACKUP_LOCK_KEY]);
    } finally {
      await other.end();
    }
    const outcome = await runScheduledBackup(job, Math.floor(Date.now() / 60_000) * 60_000);
    expect(outcome).toMatchObject({ ran: true, manifest: { engine: 'postgres' } });
    expect((await readdir(backups)).filter((name) => name.endsWith('.dump'))).toHaveLength(1);
  });
});
