/**
 * The console's inbox on SQLite and PostgreSQL: newest first, filtered by priority, delivery state
 * (from the delivery log) and spam, searched by name or e-mail with LIKE's wildcards taken
 * literally, paged; and what a query string cannot break.
 */
import { describe, expect, it } from 'vitest';
import { filterOf, inboxPage, PAGE_SIZE } from '../../../../src/features/console/inbox.server.ts';
import { ENGINES, useTestDb } from '../../../helpers/contact-fixtures.ts';

const T0 = 1_800_000_000_000;

describe.each(ENGINES)('the inbox on %s', (engine) => {
  const suite = useTestDb(engine);

  it('filters by priority, delivery state and spam, and searches name or e-mail', async () => {
    const k = suite.db.handle.kysely;
    const add = async (name: string, email: string, priority: 'high' | 'standard', extra: { spam?: string; delivery?: 'pending' | 'delivered' | 'failed' } = {}) => {
      const row = await k
        .insertInto('contact_submission')
        .values({ created_at: T0, name, job_title: null, work_email: email, priority, message: null, idempotency_key: null, next_attempt_at: null, delivered_at: null, last_error: null, spam_reason: extra.spam ?? null, delivery_status: extra.delivery ? 'dispatched' : 'none' })
        .returning('id')
        .executeTakeFirstOrThrow();
      if (extra.delivery) {
        await k.insertInto('contact_delivery').values({ submission_id: Number(row.id), channel: 'webhook', state: extra.delivery, attempts: 1, next_attempt_at: null, created_at: T0, delivered_at: null, failed_at: null, last_error: null }).execute();
      }
      return Number(row.id);
    };
    const ada = await add('Ada Lovelace', 'ada@example.com', 'high', { delivery: 'delivered' });
    const grace = await add('Grace Hopper', 'grace@navy.example', 'standard', { delivery: 'failed' });
    const spam = await add('Cheap Pills', 'spam@example.com', 'high', { spam: 'honeypot' });
    const percent = await add('100% Real_Name', 'odd@example.com', 'standard');

    const names = async (query: string) => (await inboxPage(suite.db.handle, filterOf(new URLSearchParams(query)))).rows.map((r) => r.id);
    expect(await names('')).toEqual([percent, grace, ada]);
    expect(await names('spam=all')).toEqual([percent, spam, grace, ada]);
    expect(await names('spam=spam')).toEqual([spam]);
    expect(await names('priority=high')).toEqual([ada]);
    expect(await names('delivery=failed')).toEqual([grace]);
    expect(await names('delivery=delivered')).toEqual([ada]);
    expect(await names('delivery=none')).toEqual([percent]);
    expect(await names('q=NAVY')).toEqual([grace]);
    expect(await names('q=lovelace')).toEqual([ada]);
    expect(await names('q=%25')).toEqual([percent]);
    expect(await names('q=l_ve')).toEqual([]);
    expect(await names('q=_')).toEqual([percent]);
    expect((await inboxPage(suite.db.handle, filterOf(new URLSearchParams('')))).rows.map((r) => r.delivery)).toEqual(['none', 'failed', 'delivered']);
    // Junk is ignored, never an error.
    expect(await names('priority=urgent&delivery=x&spam=maybe&page=-3')).toEqual([percent, grace, ada]);
  });

  it('pages 25 at a time, newest first', async () => {
    const k = suite.db.handle.kysely;
    const rows = Array.from({ length: PAGE_SIZE + 3 }, (_, i) => ({ created_at: T0 + i, name: `Pager ${i}`, job_title: null, work_email: `pager${i}@example.com`, priority: 'message' as const, message: null, idempotency_key: null, next_attempt_at: null, delivered_at: null, last_error: null, spam_reason: null }));
    await k.insertInto('contact_submission').values(rows).execute();
    const first = await inboxPage(suite.db.handle, filterOf(new URLSearchParams('q=pager')));
    const second = await inboxPage(suite.db.handle, filterOf(new URLSearchParams('q=pager&page=2')));
    expect(first.rows).toHaveLength(PAGE_SIZE);
    expect(first.more).toBe(true);
    expect(first.rows[0]!.name).toBe(`Pager ${PAGE_SIZE + 2}`);
    expect(second.rows.map((r) => r.name)).toEqual(['Pager 2', 'Pager 1', 'Pager 0']);
    expect(second.more).toBe(false);
  });
});
