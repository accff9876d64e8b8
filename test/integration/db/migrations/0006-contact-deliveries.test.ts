/**
 * Migration 0006 on a database that already holds submissions from before it, on both engines:
 * what the outbox knew per submission becomes a webhook delivery with its state, attempts, due
 * time and last error, and the outbox carries on from there.
 */
import { Migrator } from 'kysely/migration';
import { afterEach, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../../../src/db/create-db.ts';
import { initial } from '../../../../src/db/migrations/0001-initial.ts';
import { healthProbe } from '../../../../src/db/migrations/0002-health-probe.ts';
import { apiKeys } from '../../../../src/db/migrations/0003-api-keys.ts';
import { altchaReplay } from '../../../../src/db/migrations/0004-altcha-replay.ts';
import { contactEmailIndex } from '../../../../src/db/migrations/0005-contact-email-index.ts';
import { migrateToLatest } from '../../../../src/db/migrations/index.ts';
import { submissionDeliveries } from '../../../../src/features/contact/deliveries.server.ts';
import { deliverPending } from '../../../../src/features/contact/outbox.server.ts';
import { ENGINES } from '../../../helpers/contact-fixtures.ts';
import { createTempDatabase, type TempDatabase } from '../../../helpers/postgres.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';

describe.each(ENGINES)('migration 0006 over older submissions on %s', (engine) => {
  let handle: DbHandle | undefined;
  let temp: TempDatabase | undefined;
  afterEach(async () => {
    await handle?.close();
    await temp?.drop();
  });

  it('carries pending and delivered webhook deliveries over, and the outbox goes on with them', async () => {
    temp = engine === 'postgres' ? await createTempDatabase('m6') : undefined;
    handle = createDb(temp?.url ?? tempSqliteUrl());
    const before = new Migrator({
      db: handle.kysely,
      provider: {
        getMigrations: async () => ({
          '0001-initial': initial(handle!.engine),
          '0002-health-probe': healthProbe(),
          '0003-api-keys': apiKeys(handle!.engine),
          '0004-altcha-replay': altchaReplay(),
          '0005-contact-email-index': contactEmailIndex(),
        }),
      },
    });
    expect((await before.migrateToLatest()).error).toBeUndefined();
    const row = { name: 'Ada', job_title: null, work_email: 'ada@example.com', priority: 'high' as const, message: null, idempotency_key: null };
    await handle.kysely
      .insertInto('contact_submission')
      .values([
        { ...row, id: 1, created_at: 1_000, delivery_status: 'none', delivery_attempts: 0, next_attempt_at: null, delivered_at: null, last_error: null },
        { ...row, id: 2, created_at: 2_000, delivery_status: 'pending', delivery_attempts: 7, next_attempt_at: 9_000, delivered_at: null, last_error: 'HTTP 503 Service Unavailable' },
        { ...row, id: 3, created_at: 3_000, delivery_status: 'delivered', delivery_attempts: 1, next_attempt_at: null, delivered_at: 3_500, last_error: null },
      ] as never)
      .execute();

    const after = await migrateToLatest(handle.kysely, handle.engine);
    expect(after.error).toBeUndefined();
    expect(after.results?.map((r) => r.migrationName)).toEqual(['0006-contact-deliveries']);

    expect(await submissionDeliveries(handle, 1)).toEqual([]);
    expect(await submissionDeliveries(handle, 2)).toEqual([expect.objectContaining({ channel: 'webhook', state: 'pending', attempts: 7, next_attempt_at: 9_000, last_error: 'HTTP 503 Service Unavailable', attemptLog: [] })]);
    expect(await submissionDeliveries(handle, 3)).toEqual([expect.objectContaining({ channel: 'webhook', state: 'delivered', attempts: 1, delivered_at: 3_500, next_attempt_at: null })]);
    const statuses = await handle.kysely.selectFrom('contact_submission').select(['id', 'delivery_status', 'spam_reason']).orderBy('id').execute();
    expect(statuses).toEqual([
      { id: 1, delivery_status: 'none', spam_reason: null },
      { id: 2, delivery_status: 'dispatched', spam_reason: null },
      { id: 3, delivery_status: 'dispatched', spam_reason: null },
    ]);

    // The carried-over delivery is due and goes out once; the delivered one is not sent again.
    const sent: number[] = [];
    const fetch = async (_url: string | URL | Request, init?: RequestInit) => {
      sent.push((JSON.parse(String(init?.body)) as { id: number }).id);
      return new Response(null, { status: 204 });
    };
    expect(await deliverPending({ db: handle, webhookUrl: 'http://hooks.example/contact', fetch: fetch as typeof globalThis.fetch, now: () => 10_000 })).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    expect(sent).toEqual([2]);
  });
});
