/**
 * Group commit of contact submissions (src/features/contact/contact.server.ts storeSubmission):
 * submissions arriving in one event-loop turn share one transaction, every promise settles only
 * after its own row is committed, and a row the database refuses fails alone. Real SQLite and
 * real PostgreSQL; a trigger stands in for "a row the database refuses" (a constraint a valid
 * payload cannot break otherwise).
 */
import { Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdempotencyKeyReused, listSubmissions, storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import type { ContactPayload } from '../../../../src/features/contact/contact.ts';
import { callContact, ENGINES, contactRequest, countRows, json, useTestDb, validPayload } from '../../../helpers/contact-fixtures.ts';

const payload = (i: number, message = `Group commit test message ${i}.`): ContactPayload => ({ ...validPayload, name: `Sender ${i}`, message }) as ContactPayload;
const store = (handle: Parameters<typeof storeSubmission>[0], p: ContactPayload, idempotencyKey?: string) =>
  storeSubmission(handle, p, { deliver: false, ...(idempotencyKey ? { idempotencyKey } : {}) });

describe.each(ENGINES)('contact group commit on %s', (engine) => {
  const suite = useTestDb(engine);

  beforeEach(async () => {
    await sql`delete from contact_submission`.execute(suite.db.handle.kysely);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('stores a burst of 200 submissions of one turn in one transaction, each answered with its own row', async () => {
    const { handle } = suite.db;
    // On any Kysely: the store runs its transaction on a connection bound to its deadline (DbHandle.within).
    const transactions = vi.spyOn(Kysely.prototype, 'transaction');
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => store(handle, payload(i))));
    expect(transactions).toHaveBeenCalledTimes(1);

    const rows = await listSubmissions(handle);
    expect(rows).toHaveLength(200);
    expect(new Set(results.map((r) => r.id)).size).toBe(200);
    // Each promise got the id of the row holding its own content.
    const byId = new Map(rows.map((row) => [row.id, row]));
    results.forEach((result, i) => {
      expect(result.replayed).toBe(false);
      expect(byId.get(result.id)?.name).toBe(`Sender ${i}`);
    });
  });

  it('fails only the row the database refuses, and stores the others of its group', async () => {
    const { handle } = suite.db;
    await refuseMessage(engine, handle.kysely, 'poison');
    try {
      const outcomes = await Promise.allSettled([store(handle, payload(1)), store(handle, payload(2, 'poison')), store(handle, payload(3)), store(handle, payload(4))]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      const rows = await listSubmissions(handle);
      expect(rows.map((row) => row.name).sort()).toEqual(['Sender 1', 'Sender 3', 'Sender 4']);
    } finally {
      await allowMessages(engine, handle.kysely);
    }
  });

  it('replays a key sent twice in one turn, and refuses its reuse for other content, storing one row', async () => {
    const { handle } = suite.db;
    const key = '0b6f3c8e-3c6e-4f7a-9d43-7f8f3b2a1c01';
    const [first, retry, reuse] = await Promise.allSettled([store(handle, payload(1), key), store(handle, payload(1), key), store(handle, payload(2), key)]);
    expect(first).toMatchObject({ status: 'fulfilled', value: { replayed: false } });
    expect(retry).toMatchObject({ status: 'fulfilled', value: { replayed: true } });
    expect((retry as PromiseFulfilledResult<{ id: number }>).value.id).toBe((first as PromiseFulfilledResult<{ id: number }>).value.id);
    expect(reuse.status).toBe('rejected');
    expect((reuse as PromiseRejectedResult).reason).toBeInstanceOf(IdempotencyKeyReused);
    expect(await countRows(handle)).toBe(1);
  });

  it('answers 200 to a concurrent burst of requests only for submissions it then finds stored', async () => {
    const requests = Array.from({ length: 100 }, (_, i) => contactRequest(json({ ...validPayload, name: `Burst ${i}` })));
    const responses = await Promise.all(requests.map((request) => callContact(request, suite.services)));
    expect(responses.map((r) => r.status)).toEqual(Array.from({ length: 100 }, () => 200));
    const names = new Set((await listSubmissions(suite.db.handle)).map((row) => row.name));
    for (let i = 0; i < 100; i++) expect(names.has(`Burst ${i}`)).toBe(true);
    expect(names.size).toBe(100);
  });
});

type Db = ReturnType<typeof useTestDb>['db']['handle']['kysely'];

/** A trigger that aborts the insert of a submission with this message. */
async function refuseMessage(engine: (typeof ENGINES)[number], db: Db, message: string): Promise<void> {
  if (engine === 'sqlite') {
    await sql
      .raw(`create trigger refuse_message before insert on contact_submission when new.message = '${message}' begin select raise(abort, 'refused by test trigger'); end`)
      .execute(db);
    return;
  }
  await sql
    .raw(
      `create function refuse_message() returns trigger language plpgsql as $$ begin if new.message = '${message}' then raise exception 'refused by test trigger'; end if; return new; end $$`,
    )
    .execute(db);
  await sql.raw('create trigger refuse_message before insert on contact_submission for each row execute function refuse_message()').execute(db);
}

async function allowMessages(engine: (typeof ENGINES)[number], db: Db): Promise<void> {
  if (engine === 'sqlite') {
    await sql.raw('drop trigger refuse_message').execute(db);
    return;
  }
  await sql.raw('drop trigger refuse_message on contact_submission').execute(db);
  await sql.raw('drop function refuse_message()').execute(db);
}
