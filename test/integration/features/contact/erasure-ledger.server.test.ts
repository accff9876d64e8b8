/**
 * Erasure survives restore, on both engines, through the real commands: a backup is taken, a
 * person is erased with `contact:erase`, the database is lost and the backup restored; the
 * restore replays the ledger and the person stays erased. A person who wrote again after being
 * erased keeps the later submission. The ledger holds no address in clear.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb } from '../../../../src/db/create-db.ts';
import { sqlitePath } from '../../../../src/db/database-url.ts';
import { migrateToLatest } from '../../../../src/db/migrations/index.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { appendErasure, readLedger, replayErasures } from '../../../../src/features/contact/erasure-ledger.server.ts';
import { ENGINES, validPayload } from '../../../helpers/contact-fixtures.ts';
import { createTempDatabase, pgAdminUrl } from '../../../helpers/postgres.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';

const execFileAsync = promisify(execFile);
/** Three commands, each a Node.js process that loads TypeScript: well past the default bound on a busy machine. */
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

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'erasure-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function emailsIn(url: string): Promise<string[]> {
  const db = createDb(url);
  try {
    return (await db.kysely.selectFrom('contact_submission').select('work_email').orderBy('id').execute()).map((r) => r.work_email);
  } finally {
    await db.close();
  }
}

describe.each(ENGINES)('erasure survives restore on %s', (engine) => {
  it('re-erases, when an older backup is restored, whoever contact:erase erased after it was taken', async () => {
    const temp = engine === 'postgres' ? await createTempDatabase('erasure') : undefined;
    const url = temp?.url ?? tempSqliteUrl();
    // On PostgreSQL the ledger is a file on the host that runs the commands (ERASURE_LEDGER); on SQLite its default is beside the database file.
    const env: Record<string, string> = { DATABASE_URL: url, ...(engine === 'postgres' ? { ERASURE_LEDGER: join(dir, 'pg-erasures.ndjson') } : {}) };
    const ledger = env['ERASURE_LEDGER'] ?? `${sqlitePath(url)}.erasure-ledger`;
    const db = createDb(url);
    const migrated = await migrateToLatest(db.kysely, db.engine);
    if (migrated.error) throw migrated.error;
    const t0 = Date.now() - 60_000;
    await storeSubmission(db, { ...validPayload, work_email: 'ada@example.com' }, { webhookEnabled: true, now: t0 });
    await storeSubmission(db, { ...validPayload, work_email: 'grace@example.com' }, { webhookEnabled: false, now: t0 + 1 });
    await db.close();

    const backup = join(dir, `${engine}.backup`);
    expect(await command('backup', ['--out', backup], env)).toMatchObject({ code: 0 });
    const erased = await command('contact-erase', ['--email', 'Ada@Example.com'], env);
    expect(erased.stdout).toMatch(/^erased 1 submission and 1 pending delivery of Ada@Example\.com/);
    const text = await readFile(ledger, 'utf8');
    // Digests are hex and the salt base64: neither can hold an address's @ or its domain's dot.
    expect(text).not.toMatch(/@|example\.com/i);
    expect(text.trim().split('\n')).toHaveLength(2); // the header and one erasure

    // The database is lost.
    if (temp) {
      const admin = new pg.Client({ connectionString: pgAdminUrl() });
      await admin.connect();
      await admin.query(`drop database ${new URL(url).pathname.slice(1)} with (force)`).finally(() => admin.end());
    } else {
      for (const suffix of ['', '-wal', '-shm']) await rm(`${sqlitePath(url)}${suffix}`, { force: true });
    }

    const restored = await command('restore', [backup], env);
    expect(restored.stderr).toBe('');
    expect(restored.stdout).toMatch(/replayed 1 erasure from .*: 1 submission erased again\n$/);
    expect(await emailsIn(url)).toEqual(['grace@example.com']);
    await temp?.drop();
  }, COMMANDS_TIMEOUT_MS);
});

describe('the ledger', () => {
  it('re-erases only submissions made at or before the erasure, and skips a torn last line', async () => {
    const url = tempSqliteUrl();
    const path = join(dir, 'unit-ledger.ndjson');
    const db = createDb(url);
    const migrated = await migrateToLatest(db.kysely, db.engine);
    if (migrated.error) throw migrated.error;
    const erasedAt = Date.UTC(2026, 5, 1);
    await storeSubmission(db, { ...validPayload, work_email: 'ada@example.com' }, { webhookEnabled: false, now: erasedAt - 1 });
    await storeSubmission(db, { ...validPayload, work_email: 'ADA@example.com' }, { webhookEnabled: false, now: erasedAt });
    await storeSubmission(db, { ...validPayload, work_email: 'ada@example.com' }, { webhookEnabled: false, now: erasedAt + 1 });
    await appendErasure(path, ' Ada@Example.COM ', erasedAt);
    await appendErasure(path, 'someone@example.com', erasedAt);
    const { appendFile } = await import('node:fs/promises');
    await appendFile(path, '{"at":12');
    const ledger = (await readLedger(path))!;
    expect(ledger.unreadable).toBe(1);
    expect(await replayErasures(db, ledger, 1)).toEqual({ erasures: 2, submissions: 2, unreadable: 1 });
    const left = await db.kysely.selectFrom('contact_submission').select('created_at').execute();
    expect(left).toEqual([{ created_at: erasedAt + 1 }]);
    await db.close();
    expect(await readLedger(join(dir, 'no-such-ledger'))).toBeUndefined();
  });
});
