/**
 * `npm run -s db:copy` (jobs/cli/db-copy.ts over src/db/copy.ts): a SQLite site moved into a real
 * PostgreSQL database, run as an operator runs it, row for row, refusing a used target and
 * finishing an interrupted copy.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../../src/db/create-db.ts';
import { openMigratedDb } from '../../../src/db/open-migrated-db.ts';
import { createTempDatabase, type TempDatabase } from '../../helpers/postgres.ts';

const EVENTS = 45_321; // more than two batches of 20,000

function dbCopy(...args: string[]) {
  const run = spawnSync(process.execPath, ['jobs/cli/db-copy.ts', ...args], { encoding: 'utf8', env: { ...process.env, DATABASE_URL: undefined } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

async function seedSqlite(path: string): Promise<void> {
  const db = await openMigratedDb({ DATABASE_URL: path });
  try {
    await db.kysely
      .insertInto('contact_submission')
      .values([
        { created_at: 1_700_000_000_000, name: 'Zoë Ångström', job_title: null, work_email: 'zoe@example.com', priority: 'high', message: 'Line one\nline "two", ünïcode ✓', idempotency_key: 'k-1' },
        { created_at: 1_700_000_001_000, name: 'Bo', job_title: 'CTO', work_email: 'bo@example.com', priority: 'message', message: null, idempotency_key: null },
      ])
      .execute();
    const events = Array.from({ length: EVENTS }, (_, i) => ({ id: `e-${i}`, occurred_at: 1_700_000_000_000 + i * 1000, kind: i % 3 === 0 ? ('transaction' as const) : ('impression' as const), revenue_minor: i % 3 === 0 ? 1999 : 0 }));
    for (let i = 0; i < events.length; i += 500) await db.kysely.insertInto('event').values(events.slice(i, i + 500)).execute();
    await db.kysely.insertInto('daily_stat').values({ day: '2023-11-14', txn_count: 3, impr_count: 7, revenue_minor: 5997, materialized_at: 1_700_000_100_000 }).execute();
    await db.kysely.insertInto('api_key').values({ name: 'Acme', token_hash: 'a'.repeat(64), token_prefix: 'ak_abcd', minute_limit: 60, day_limit: 10_000, created_at: 1_700_000_000_000, revoked_at: null }).execute();
  } finally {
    await db.close();
  }
}

describe('npm run -s db:copy (SQLite to PostgreSQL)', () => {
  let sqliteFile: string;
  let target: TempDatabase;
  let pg: DbHandle;

  beforeAll(async () => {
    sqliteFile = join(mkdtempSync(join(tmpdir(), 'db-copy-')), 'site.db');
    await seedSqlite(sqliteFile);
    target = await createTempDatabase('copy');
    pg = createDb(target.url);
  });
  afterAll(async () => {
    await pg?.close();
    await target?.drop();
  });

  it('copies every table row for row, verifies the counts and never prints the password', async () => {
    const run = dbCopy('--from', sqliteFile, '--to', target.url);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`event: ${EVENTS} rows in the source, ${EVENTS} in the target\n`);
    expect(run.stdout).toContain('contact_submission: 2 rows in the source, 2 in the target\n');
    expect(run.stdout).toContain('every table\'s count matches');
    const password = new URL(target.url).password;
    if (password) expect(run.stdout + run.stderr).not.toContain(password);

    const sqlite = await openMigratedDb({ DATABASE_URL: sqliteFile });
    try {
      for (const table of ['contact_submission', 'daily_stat', 'api_key'] as const) {
        const before = await sqlite.kysely.selectFrom(table).selectAll().orderBy(table === 'daily_stat' ? 'day' : 'id').execute();
        const after = await pg.kysely.selectFrom(table).selectAll().orderBy(table === 'daily_stat' ? 'day' : 'id').execute();
        // pg returns bigint columns as strings: compare the values as the application reads them.
        expect(after.map((row) => Object.fromEntries(Object.entries(row).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) && k !== 'day' ? Number(v) : v]))), table).toEqual(before);
      }
    } finally {
      await sqlite.close();
    }
    // The identity sequence moved past the copied ids: PostgreSQL numbers the next row 3, not 1.
    const next = await pg.kysely.insertInto('contact_submission').values({ created_at: Date.now(), name: 'New', job_title: null, work_email: 'new@example.com', priority: 'standard', message: null, idempotency_key: null }).returning('id').executeTakeFirstOrThrow();
    expect(Number(next.id)).toBe(3);
  });

  it('refuses a target that already holds rows (exit 73, naming the tables), and changes nothing', async () => {
    const before = await pg.kysely.selectFrom('event').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    const run = dbCopy('--from', sqliteFile, '--to', target.url);
    expect(run.status).toBe(73);
    expect(run.stderr).toMatch(/^db-copy: the target already holds rows \(.*contact_submission.*\): copy into an empty database, or pass --resume/);
    const after = await pg.kysely.selectFrom('event').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    expect(after.n).toEqual(before.n);
  });

  it('finishes an interrupted copy with --resume, and says when the target holds rows the source lacks', async () => {
    await pg.kysely.deleteFrom('event').where('id', '>=', 'e-2').execute();
    const resumed = dbCopy('--from', sqliteFile, '--to', target.url, '--resume');
    // contact_submission holds the row added above: resume keeps it and reports the difference.
    expect(resumed.stdout).toContain(`event: ${EVENTS} rows in the source, ${EVENTS} in the target\n`);
    expect(resumed.stdout).toContain('contact_submission: 2 rows in the source, 3 in the target  <- differs\n');
    expect(resumed.stderr).toContain('counts differ in contact_submission');
    expect(resumed.status).toBe(65);
  });

  it.each([
    [['--to', 'postgres://x@127.0.0.1/x'], 'give both --from (the SQLite file) and --to (the PostgreSQL URL)'],
    [['--from', '/no/such/site.db', '--to', 'postgres://x@127.0.0.1/x'], '--from must be an existing SQLite database file, got "/no/such/site.db"'],
  ])('refuses %j with a usage line (64)', (args, message) => {
    const run = dbCopy(...args);
    expect(run.status).toBe(64);
    expect(run.stderr.split('\n')[0]).toBe(`db-copy: ${message}`);
  });
});
