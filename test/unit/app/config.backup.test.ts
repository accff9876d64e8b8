/**
 * The backup settings: BACKUP_CRON, BACKUP_DIR, BACKUP_KEEP and ERASURE_LEDGER parse by their
 * documented rules, and a scheduled backup refuses a BACKUP_DIR it cannot write at start-up.
 */
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/app/config.ts';
import { prepareBackupLocation } from '../../../src/app/database-location.ts';

describe('backup settings', () => {
  it('default to no scheduled backup, ./backups and the newest 7', () => {
    const defaults = loadConfig({});
    expect(defaults).toMatchObject({ BACKUP_DIR: './backups', BACKUP_KEEP: 7 });
    expect([defaults.BACKUP_CRON, defaults.ERASURE_LEDGER]).toEqual([undefined, undefined]);
    expect(loadConfig({ BACKUP_CRON: '15 1 * * *', BACKUP_KEEP: '30', ERASURE_LEDGER: '/srv/ledger' })).toMatchObject({ BACKUP_CRON: '15 1 * * *', BACKUP_KEEP: 30, ERASURE_LEDGER: '/srv/ledger' });
  });

  it('refuses a bad cron expression and a keep count that is not a positive whole number, on one line each', () => {
    expect(() => loadConfig({ BACKUP_CRON: 'nightly' })).toThrow(/^Invalid configuration: BACKUP_CRON: must be a node-cron expression \(evaluated in UTC\), e\.g\. "15 1 \* \* \*" \(got "nightly"\)$/);
    expect(() => loadConfig({ BACKUP_KEEP: '0' })).toThrow(/BACKUP_KEEP: must be greater than 0/);
    expect(() => loadConfig({ BACKUP_KEEP: '2.5' })).toThrow(/BACKUP_KEEP: must be a whole number/);
  });
});

describe('prepareBackupLocation', () => {
  it('requires an existing, writable BACKUP_DIR only when a scheduled backup runs here', () => {
    const dir = mkdtempSync(join(tmpdir(), 'backup-location-'));
    try {
      const missing = join(dir, 'nope');
      expect(() => prepareBackupLocation({ BACKUP_CRON: undefined, BACKUP_DIR: missing, JOBS_ENABLED: true })).not.toThrow();
      expect(() => prepareBackupLocation({ BACKUP_CRON: '* * * * *', BACKUP_DIR: missing, JOBS_ENABLED: false })).not.toThrow();
      expect(() => prepareBackupLocation({ BACKUP_CRON: '* * * * *', BACKUP_DIR: missing, JOBS_ENABLED: true })).toThrow(ConfigError);
      expect(() => prepareBackupLocation({ BACKUP_CRON: '* * * * *', BACKUP_DIR: missing, JOBS_ENABLED: true })).toThrow(/^Invalid configuration: BACKUP_DIR: .*nope must be an existing directory this process can write \(ENOENT\); create it, or unset BACKUP_CRON$/);
      expect(() => prepareBackupLocation({ BACKUP_CRON: '* * * * *', BACKUP_DIR: dir, JOBS_ENABLED: true })).not.toThrow();
      if (process.getuid?.() !== 0) {
        chmodSync(dir, 0o500);
        expect(() => prepareBackupLocation({ BACKUP_CRON: '* * * * *', BACKUP_DIR: dir, JOBS_ENABLED: true })).toThrow(/EACCES/);
        chmodSync(dir, 0o700);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
