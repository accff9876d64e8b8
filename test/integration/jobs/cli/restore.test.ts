/**
 * The backup commands as an operator runs them, on SQLite: one line and the documented exit
 * status for a damaged backup, a restore while another process has the database open, a
 * non-empty target, and a missing backup.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../../src/db/create-db.ts';
import { migrateToLatest } from '../../../../src/db/migrations/index.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { validPayload } from '../../../helpers/contact-fixtures.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';

const execFileAsync = promisify(execFile);
/** Several commands per test, each a Node.js process that loads TypeScript: past the default bound on a busy machine. */
const COMMANDS_TIMEOUT_MS = 180_000;

async function command(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [`jobs/cli/${script}.ts`, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('backup, backup:verify and restore commands', { timeout: COMMANDS_TIMEOUT_MS }, () => {
  let dir: string;
  let url: string;
  let backup: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'restore-cli-'));
    url = tempSqliteUrl();
    const db = createDb(url);
    const migrated = await migrateToLatest(db.kysely, db.engine);
    if (migrated.error) throw migrated.error;
    await storeSubmission(db, validPayload, { webhookEnabled: false });
    await db.close();
    backup = join(dir, 'site.backup');
    const taken = await command('backup', ['--out', backup], { DATABASE_URL: url });
    expect(taken).toMatchObject({ code: 0, stderr: '' });
    expect(taken.stdout).toMatch(/^backed up sqlite \(schema at 0\d{3}-[\w-]+, \d+ rows in \d+ tables\) to .*site\.backup, \d+ bytes, sha256 [0-9a-f]{64}\n$/);
  }, COMMANDS_TIMEOUT_MS);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('verifies a good backup in one line, and refuses a damaged one with exit 65 and one line', async () => {
    const good = await command('backup-verify', [backup], {});
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^ok .*site\.backup: sqlite backup taken .*, checksum ok, schema at .* \(current\), rows: .*contact_submission 1/);
    const bytes = await readFile(backup);
    bytes[bytes.length - 100]! ^= 0x80;
    await writeFile(join(dir, 'flipped.backup'), bytes);
    await writeFile(join(dir, 'flipped.backup.manifest.json'), await readFile(`${backup}.manifest.json`));
    const bad = await command('backup-verify', [join(dir, 'flipped.backup')], {});
    expect(bad.code).toBe(65);
    expect(bad.stderr).toMatch(/^backup-verify: .*flipped\.backup is damaged: its SHA-256 differs from its manifest .*\n$/);
    expect(bad.stderr.split('\n')).toHaveLength(2);
    expect((await command('backup-verify', [join(dir, 'missing.backup')], {})).code).toBe(66);
  });

  it('refuses to back up over an existing file (73)', async () => {
    const again = await command('backup', ['--out', backup], { DATABASE_URL: url });
    expect(again.code).toBe(73);
    expect(again.stderr).toMatch(/exists: backups are never overwritten/);
  });

  it('refuses to restore while another process has the database open (75), and over a non-empty one without --force (73)', async () => {
    const holder = createDb(url);
    await holder.ping();
    try {
      const busy = await command('restore', [backup, '--force'], { DATABASE_URL: url });
      expect(busy.code).toBe(75);
      expect(busy.stderr).toMatch(/^restore: .* is open in another process \(a running server\?\): stop it, then restore\n$/);
    } finally {
      await holder.close();
    }
    const full = await command('restore', [backup], { DATABASE_URL: url });
    expect(full.code).toBe(73);
    const forced = await command('restore', [backup, '--force'], { DATABASE_URL: url });
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/^restored .* into .*; no erasure ledger at .*\.erasure-ledger\n$/);
  });
});
