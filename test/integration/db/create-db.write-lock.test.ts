/**
 * Another process holding the database's write lock never stalls the server.
 * Contacts keep the interface's promise (an answer within 5 s: 200 stored, or 502 not stored,
 * never a 502 stored later) and /healthz keeps answering at once, on the real server with a
 * real SQLite file or PostgreSQL database. Before the fix, SQLite's busy_timeout waited inside
 * better-sqlite3's synchronous call: three contacts answered at 3.9, 7.6 and 7.8 s and
 * /healthz took 7.8 s.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callContact, ENGINES, contactRequest, json, openTestDb, testServices, validPayload, type TestDb } from '../../helpers/contact-fixtures.ts';
import { holdWriteLock, postContact, type HeldLock, serve, sleep, storedContacts, timedFetch, type ServedDb } from '../../helpers/storage-helpers.ts';

/** The interface's promise for POST /api/contact. */
const ANSWER_WITHIN_MS = 5_000;
/**
 * The requirement for /healthz while a lock is held: the median probe answers within 50 ms, and
 * none takes 500 ms (on this shared 2-core machine a single probe was once seen at 107 ms with
 * the event loop free). A loop blocked by busy_timeout shows seconds: 7.7 s before the fix.
 */
const HEALTHZ_MEDIAN_WITHIN_MS = 50;
const HEALTHZ_EACH_WITHIN_MS = 500;
/** A read while writes wait for the lock: queued behind them it would take their 3.75 s. */
const READ_WITHIN_MS = 1_000;

describe.each(ENGINES)('a write lock held outside the server on %s', (engine) => {
  let served: ServedDb | undefined;
  let lock: HeldLock | undefined;
  afterEach(async () => {
    await lock?.released.catch(() => {});
    await served?.stop();
    served = undefined;
    lock = undefined;
  });

  it('answers three concurrent contacts 502 within 5 s, keeps /healthz and reads fast, and stores none of them after the lock is released', async () => {
    served = await serve(engine);
    const origin = served.server.url;
    await timedFetch(`${origin}/healthz`); // warm the keep-alive connection the probes reuse
    lock = await holdWriteLock(engine, served.url, 8_000);

    const contacts = Promise.all(['one', 'two', 'three'].map((name) => postContact(origin, name, `locked-${engine}-${name}`)));
    const probes: number[] = [];
    for (let i = 0; i < 6; i += 1) {
      await sleep(400);
      probes.push((await timedFetch(`${origin}/healthz`)).elapsedMs);
    }
    // Reads do not queue behind the waiting writes (WAL readers take no write lock).
    const read = await timedFetch(`${origin}/api/v1/public/data?startDate=2026-07-01&endDate=2026-07-31`);
    const answers = await contacts;

    for (const answer of answers) {
      expect(answer.status).toBe(502);
      expect(answer.contentType).toBe('application/problem+json; charset=utf-8');
      expect(answer.body).toMatchObject({ code: 'upstream_unavailable', status: 502 });
      expect(answer.elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
    }
    const sorted = [...probes].sort((a, b) => a - b);
    expect(sorted[Math.floor(sorted.length / 2)]).toBeLessThan(HEALTHZ_MEDIAN_WITHIN_MS);
    expect(sorted.at(-1)).toBeLessThan(HEALTHZ_EACH_WITHIN_MS);
    expect(read.status).toBe(200);
    expect(read.elapsedMs).toBeLessThan(READ_WITHIN_MS);

    await lock.released;
    await sleep(500);
    // Nothing was waiting to commit once the lock went away.
    expect(await storedContacts(served.url)).toEqual([]);
  });

  it('lets contacts wait out a lock held for a second, then stores each once and answers 200', async () => {
    served = await serve(engine);
    const origin = served.server.url;
    lock = await holdWriteLock(engine, served.url, 1_000);

    const answers = await Promise.all(['one', 'two', 'three'].map((name) => postContact(origin, name, `short-${engine}-${name}`)));
    await lock.released;

    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ success: true });
      expect(answer.elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);
    }
    // The lock was really in the way: the first answer came after it was released.
    expect(Math.min(...answers.map((a) => a.elapsedMs))).toBeGreaterThan(500);
    const stored = await storedContacts(served.url);
    expect(stored.map((row) => row.idempotency_key).sort()).toEqual([`short-${engine}-one`, `short-${engine}-three`, `short-${engine}-two`]);
  });
});

describe.each(ENGINES)('the server’s own connections all busy on %s', (engine) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('answers a contact 502 within 5 s and does not store it when a connection frees up later', async () => {
    // One connection (SQLite has one anyway), held by a long transaction for 4.5 s: past the
    // store's deadline, inside the time a late commit would still have happened.
    db = await openTestDb(engine, { poolSize: 1 });
    const handle = db.handle;
    const holder = handle.kysely.transaction().execute(async (trx) => {
      await trx.selectFrom('contact_submission').select('id').execute();
      await sleep(4_500);
    });
    await sleep(50);

    const started = performance.now();
    const response = await callContact(contactRequest(json(validPayload), { 'content-type': 'application/json', 'idempotency-key': `busy-${engine}` }), testServices(handle), { deadlineMs: 4_000 });
    const elapsedMs = performance.now() - started;
    expect(response.status).toBe(502);
    expect(elapsedMs).toBeLessThan(ANSWER_WITHIN_MS);

    await holder;
    await sleep(500);
    expect(await handle.kysely.selectFrom('contact_submission').select('id').execute()).toEqual([]);
  });
});
