import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../../src/db/create-db.ts';
import { engineOf, sqlitePath } from '../../../src/db/database-url.ts';
import { migrateToLatest } from '../../../src/db/migrations/index.ts';
import { createTempDatabase, type TempDatabase } from '../../helpers/postgres.ts';
import { tempSqliteUrl } from '../../helpers/server.ts';

describe('engine selection', () => {
  it('picks PostgreSQL for postgres URLs and SQLite for paths and file: URLs', () => {
    for (const [url, engine] of [
      ['postgres://u@h/db', 'postgres'],
      ['postgresql://u@h/db', 'postgres'],
      ['./data/site.db', 'sqlite'],
    ] as const) {
      expect(engineOf(url), url).toBe(engine);
    }
    expect([sqlitePath('file:///tmp/x.db'), sqlitePath(':memory:')]).toEqual(['/tmp/x.db', ':memory:']);
  });
});

describe.each(['sqlite', 'postgres'] as const)('data layer on %s', (engine) => {
  let temp: TempDatabase | undefined;
  let handle: DbHandle;

  beforeAll(async () => {
    let url = tempSqliteUrl();
    if (engine === 'postgres') {
      temp = await createTempDatabase('db');
      url = temp.url;
    }
    handle = createDb(url);
    expect(handle.engine).toBe(engine);
  });
  afterAll(async () => {
    await handle?.close();
    await temp?.drop();
  });

  it('applies the migrations once and is a no-op the second time', async () => {
    const first = await migrateToLatest(handle.kysely, handle.engine);
    expect(first.error).toBeUndefined();
    expect(first.results?.map((r) => [r.migrationName, r.status])).toEqual([
      ['0001-initial', 'Success'],
      ['0002-health-probe', 'Success'],
      ['0003-api-keys', 'Success'],
      ['0004-altcha-replay', 'Success'],
      ['0005-contact-email-index', 'Success'],
      ['0006-contact-deliveries', 'Success'],
      ['0007-console', 'Success'],
    ]);
    const second = await migrateToLatest(handle.kysely, handle.engine);
    expect(second.error).toBeUndefined();
    expect(second.results).toEqual([]);
  });

  it('round-trips big integers as JavaScript numbers', async () => {
    const at = Date.UTC(2026, 10, 21, 23, 59, 59, 999);
    await handle.kysely
      .insertInto('event')
      .values([
        { id: 'e1', occurred_at: at, kind: 'transaction', revenue_minor: 1999 },
        { id: 'e2', occurred_at: at + 1, kind: 'impression', revenue_minor: 0 },
      ])
      .execute();
    const row = await handle.kysely
      .selectFrom('event')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('revenue_minor').as('revenue'), eb.fn.max('occurred_at').as('last')])
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ n: 2, revenue: 1999, last: at + 1 });
  });

  it('generates ids and defaults for contact submissions', async () => {
    const inserted = await handle.kysely
      .insertInto('contact_submission')
      .values({ created_at: 1, name: 'Ada', job_title: null, work_email: 'ada@example.com', priority: 'high', message: null, idempotency_key: 'k1', next_attempt_at: null, delivered_at: null, last_error: null })
      .returning(['id', 'delivery_status', 'delivery_attempts'])
      .executeTakeFirstOrThrow();
    expect(inserted).toEqual({ id: 1, delivery_status: 'none', delivery_attempts: 0 });
  });

  it('enforces the check constraints written in the migration', async () => {
    await expect(
      handle.kysely.insertInto('event').values({ id: 'bad', occurred_at: 0, kind: 'click' as 'impression', revenue_minor: 0 }).execute(),
    ).rejects.toThrow(/check/i);
  });

  it('answers ping while up', async () => {
    await expect(handle.ping()).resolves.toBeUndefined();
  });
});

describe('an unreachable PostgreSQL', () => {
  it('fails ping within the timeout instead of hanging', async () => {
    const handle = createDb('postgres://postgres@127.0.0.1:1/none');
    await expect(handle.ping(1_000)).rejects.toThrow();
    await handle.close();
  });
});
