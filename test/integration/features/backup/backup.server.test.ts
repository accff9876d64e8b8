/**
 * Backups on both engines, for real: a backup taken while contact submissions keep being stored,
 * the database deleted, the backup restored; every submission acknowledged before the backup
 * started is there exactly once. Then what verify and restore refuse (a flipped byte, a truncated
 * file, a newer schema) and what restore repairs (an older schema is migrated).
 */
import { copyFile, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../../../src/db/create-db.ts';
import { sqlitePath } from '../../../../src/db/database-url.ts';
import { migrateToLatest, migrationNames } from '../../../../src/db/migrations/index.ts';
import { BackupError, takeBackup, verifyBackup } from '../../../../src/features/backup/backup.server.ts';
import { manifestPath } from '../../../../src/features/backup/manifest.ts';
import { restoreBackup } from '../../../../src/features/backup/restore.server.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { ENGINES, validPayload, type TestEngine } from '../../../helpers/contact-fixtures.ts';
import { createTempDatabase, pgAdminUrl } from '../../../helpers/postgres.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'backup-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A fresh, migrated database of `engine` and a way to delete it entirely. */
async function freshDatabase(engine: TestEngine): Promise<{ url: string; handle: DbHandle; destroy(): Promise<void> }> {
  // `handle` may be replaced by a test (reopened after a close); destroy closes the current one.
  const temp = engine === 'postgres' ? await createTempDatabase('backup') : undefined;
  const url = temp?.url ?? tempSqliteUrl();
  const handle = createDb(url);
  const migrated = await migrateToLatest(handle.kysely, handle.engine);
  if (migrated.error) throw migrated.error;
  const database = {
    url,
    handle,
    async destroy() {
      await database.handle.close();
      if (temp) await temp.drop();
      else for (const suffix of ['', '-wal', '-shm']) await rm(`${sqlitePath(url)}${suffix}`, { force: true });
    },
  };
  return database;
}

async function emailsIn(url: string): Promise<string[]> {
  const db = createDb(url);
  try {
    return (await db.kysely.selectFrom('contact_submission').select('work_email').execute()).map((r) => r.work_email);
  } finally {
    await db.close();
  }
}

/** The BackupError `work` fails with (the test fails if it succeeds). */
async function refusal(work: Promise<unknown>): Promise<BackupError> {
  const error = await work.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(BackupError);
  return error as BackupError;
}

const dropDatabase = async (url: string) => {
  const admin = new pg.Client({ connectionString: pgAdminUrl() });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${new URL(url).pathname.slice(1)} with (force)`);
  } finally {
    await admin.end();
  }
};

describe.each(ENGINES)('backup and restore on %s', (engine) => {
  it('restores, after the database is lost, every submission acknowledged before a backup taken under load, exactly once', async () => {
    const source = await freshDatabase(engine);
    const acknowledged: string[] = [];
    const failures: unknown[] = [];
    let stop = false;
    let n = 0;
    // Eight writers storing submissions as fast as the database acknowledges them.
    const writer = async () => {
      while (!stop) {
        const email = `load-${n++}@example.com`;
        try {
          await storeSubmission(source.handle, { ...validPayload, work_email: email }, { webhookEnabled: false });
          acknowledged.push(email);
        } catch (error) {
          failures.push(error);
        }
      }
    };
    const writers = Array.from({ length: 8 }, writer);
    while (acknowledged.length < 200) await new Promise((resolve) => setImmediate(resolve));
    const before = [...acknowledged];
    const file = join(dir, `load-${engine}.backup`);
    // The writers keep storing while the backup runs; they stop once it has finished.
    const manifest = await takeBackup(source.url, file);
    stop = true;
    await Promise.all(writers);
    expect(failures).toEqual([]);
    expect(manifest.tables['contact_submission']).toBeGreaterThanOrEqual(before.length);

    await source.destroy();
    if (engine === 'sqlite') await expect(readFile(sqlitePath(source.url))).rejects.toThrow(/ENOENT/);

    const restored = await restoreBackup({ databaseUrl: source.url, file, force: false, ledger: undefined });
    expect(restored.applied).toEqual([]);
    const emails = await emailsIn(source.url);
    const counts = new Map<string, number>();
    for (const email of emails) counts.set(email, (counts.get(email) ?? 0) + 1);
    expect(before.filter((email) => counts.get(email) !== 1)).toEqual([]);
    expect(emails.length).toBe(new Set(emails).size);
    expect(emails.length).toBe(manifest.tables['contact_submission']);
    if (engine === 'postgres') await dropDatabase(source.url);
    else await rm(sqlitePath(source.url), { force: true });
  });

  describe('verify and restore refusals', () => {
    let file: string;
    let source: Awaited<ReturnType<typeof freshDatabase>>;
    beforeAll(async () => {
      source = await freshDatabase(engine);
      for (let i = 0; i < 20; i++) await storeSubmission(source.handle, { ...validPayload, work_email: `v${i}@example.com` }, { webhookEnabled: false });
      file = join(dir, `verify-${engine}.backup`);
      await takeBackup(source.url, file);
    });
    afterAll(async () => {
      await source.destroy();
    });

    /** A copy of the backup and its manifest under another name, changed by `damage`. */
    const damagedCopy = async (name: string, damage: (copy: string) => Promise<void>) => {
      const copy = join(dir, `${name}-${engine}.backup`);
      await copyFile(file, copy);
      await copyFile(manifestPath(file), manifestPath(copy));
      await damage(copy);
      return copy;
    };

    it('verifies a good backup: checksum, schema and row counts', async () => {
      const { manifest, schema } = await verifyBackup(file);
      expect(schema.relation).toBe('current');
      expect(manifest.migrations).toEqual(migrationNames(engine));
      expect(manifest.tables['contact_submission']).toBe(20);
    });

    it('refuses a backup with one flipped byte, and a truncated one', async () => {
      const flipped = await damagedCopy('flipped', async (copy) => {
        const bytes = await readFile(copy);
        bytes[Math.floor(bytes.length / 2)]! ^= 0x01;
        await writeFile(copy, bytes);
      });
      const flip = await refusal(verifyBackup(flipped));
      expect(flip.kind).toBe('damaged');
      expect(flip.message).toMatch(/SHA-256 differs/);
      const truncated = await damagedCopy('truncated', async (copy) => truncate(copy, 4096));
      const cut = await refusal(verifyBackup(truncated));
      expect(cut.message).toMatch(/truncated \(4096 of \d+ bytes\)/);
      // restore verifies first: a damaged backup is never restored.
      const target = engine === 'sqlite' ? tempSqliteUrl() : (await createTempDatabase('backup')).url;
      expect((await refusal(restoreBackup({ databaseUrl: target, file: flipped, force: false, ledger: undefined }))).kind).toBe('damaged');
      if (engine === 'postgres') await dropDatabase(target);
    });

    it('refuses to restore into a database another connection holds, even forced, and into one that holds tables unless forced', async () => {
      await source.handle.kysely.selectFrom('contact_submission').select('id').limit(1).execute();
      const busy = await refusal(restoreBackup({ databaseUrl: source.url, file, force: true, ledger: undefined }));
      expect(busy.kind).toBe('busy');
      await source.handle.close();
      expect((await refusal(restoreBackup({ databaseUrl: source.url, file, force: false, ledger: undefined }))).kind).toBe('exists');
      await storeSubmission((source.handle = createDb(source.url)), { ...validPayload, work_email: 'after@example.com' }, { webhookEnabled: false });
      await source.handle.close();
      await restoreBackup({ databaseUrl: source.url, file, force: true, ledger: undefined });
      const emails = await emailsIn(source.url);
      expect(emails).toHaveLength(20);
      expect(emails).not.toContain('after@example.com');
    });
  });

  it('refuses a backup from a newer schema, and migrates an older one', async () => {
    const source = await freshDatabase(engine);
    await storeSubmission(source.handle, validPayload, { webhookEnabled: false });
    // An older schema: the database as it was before migration 0005 (and so before 0006 and 0007 too).
    for (const table of ['console_audit', 'console_session', 'console_challenge', 'console_invite', 'console_credential', 'console_operator']) await sql`drop table ${sql.table(table)}`.execute(source.handle.kysely);
    await sql`drop table contact_delivery_attempt`.execute(source.handle.kysely);
    await sql`drop table contact_delivery`.execute(source.handle.kysely);
    await sql`alter table contact_submission drop column spam_reason`.execute(source.handle.kysely);
    await sql`drop index contact_submission_email_lower`.execute(source.handle.kysely);
    await source.handle.kysely.deleteFrom('kysely_migration' as never).where('name' as never, 'in', ['0005-contact-email-index', '0006-contact-deliveries', '0007-console'] as never).execute();
    const older = join(dir, `older-${engine}.backup`);
    await takeBackup(source.url, older);
    expect((await verifyBackup(older)).schema).toMatchObject({ relation: 'older', toApply: ['0005-contact-email-index', '0006-contact-deliveries', '0007-console'] });
    // A newer one: a migration this code does not know.
    await source.handle.kysely.insertInto('kysely_migration' as never).values({ name: '9999-from-the-future', timestamp: new Date().toISOString() } as never).execute();
    const newer = join(dir, `newer-${engine}.backup`);
    await takeBackup(source.url, newer);
    await source.destroy();

    const refused = await refusal(restoreBackup({ databaseUrl: source.url, file: newer, force: false, ledger: undefined }));
    expect(refused.kind).toBe('newer');
    expect(refused.message).toMatch(/9999-from-the-future/);

    const restored = await restoreBackup({ databaseUrl: source.url, file: older, force: false, ledger: undefined });
    expect(restored.applied).toEqual(['0005-contact-email-index', '0006-contact-deliveries', '0007-console']);
    expect(await emailsIn(source.url)).toEqual([validPayload.work_email]);
    if (engine === 'postgres') await dropDatabase(source.url);
  });
});
