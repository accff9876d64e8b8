/**
 * One deadline handed down to the statement (src/db/deadline.ts, DbHandle.within), on real
 * SQLite and real PostgreSQL: past it no statement but ROLLBACK runs, so nothing commits after
 * the caller gave up; a wait for a connection, the writer's turn or a lock ends at it with
 * DeadlineExceeded (or the lock's own error); and its one timer is gone once the work is over.
 * Nothing waits on a timer of the test's: the work waits for the deadline's own signal, and a
 * held lock or connection is let go only after the answer came.
 */
import Database from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SQLITE_LOCK_WAIT_MS } from '../../../src/db/create-db.ts';
import { Deadline } from '../../../src/db/deadline.ts';
import type { Database as Schema } from '../../../src/db/schema.ts';
import { DeadlineExceeded } from '../../../src/db/storage-errors.ts';
import { countRows, ENGINES, openTestDb, type TestDb } from '../../helpers/contact-fixtures.ts';

const row = (name: string) => ({ name, job_title: null, work_email: `${name}@example.com`, priority: 'standard' as const, message: null, created_at: 1, idempotency_key: name });
const insert = (kysely: Kysely<Schema>, name: string) => kysely.insertInto('contact_submission').values(row(name)).execute();
const fired = (signal: AbortSignal) => new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
/** Timers keeping this process alive, by node's own count. */
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

describe('a Deadline', () => {
  it('fires its signal at the instant with DeadlineExceeded, arms its one timer only when waited on, and clears it on dispose', async () => {
    const before = timers();
    const soon = Deadline.after(20);
    expect(timers()).toBe(before);
    await fired(soon.signal);
    expect(soon.signal.reason).toBeInstanceOf(DeadlineExceeded);
    expect(soon.remainingMs()).toBe(0);

    const later = Deadline.after(60_000);
    expect(later.signal.aborted).toBe(false);
    expect(timers()).toBe(before + 1);
    later.dispose();
    expect(timers()).toBe(before);
    expect(Deadline.at(Date.now() - 1).signal.aborted).toBe(true);
  });
});

describe.each(ENGINES)('DbHandle.within on %s', (engine) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('refuses a statement that would start after the deadline, and stores nothing', async () => {
    db = await openTestDb(engine);
    const deadline = Deadline.after(100);
    let refused: unknown;
    const outcome = db.handle.within(deadline, async (kysely) => {
      await fired(deadline.signal);
      await insert(kysely, 'late').catch((error: unknown) => {
        refused = error;
        throw error;
      });
    });
    await expect(outcome).rejects.toBeInstanceOf(DeadlineExceeded);
    expect(refused).toBeInstanceOf(DeadlineExceeded);
    expect((refused as Error).message).toMatch(/before the statement could run; nothing was written/);
    // A deadline already gone asks the database nothing.
    const asked = db.handle.within(Deadline.at(Date.now() - 1), (kysely) => insert(kysely, 'too late'));
    await expect(asked).rejects.toThrow(/had passed before the database was asked/);
    expect(await countRows(db.handle)).toBe(0);
  });

  it('refuses the COMMIT of a transaction whose deadline passed while it ran, rolls it back, and stores nothing', async () => {
    db = await openTestDb(engine);
    const deadline = Deadline.after(100);
    const outcome = db.handle.within(deadline, (kysely) =>
      kysely.transaction().execute(async (trx) => {
        await insert(trx, 'uncommitted');
        await fired(deadline.signal);
      }),
    );
    await expect(outcome).rejects.toBeInstanceOf(DeadlineExceeded);
    expect(await countRows(db.handle)).toBe(0);
    // Rolled back and released: the next write takes the writer's turn, or the connection, at once.
    await db.handle.within(5_000, (kysely) => insert(kysely, 'after'));
    expect(await countRows(db.handle)).toBe(1);
  });

  it(`ends the wait for ${engine === 'sqlite' ? "the writer's turn" : 'a pooled connection'} at the deadline with DeadlineExceeded, and the write never lands`, async () => {
    // One connection (SQLite has one writer anyway), held until the answer has come.
    db = await openTestDb(engine, { poolSize: 1, statementTimeoutMs: 60_000 });
    const handle = db.handle;
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const holder = handle.kysely.transaction().execute(async (trx) => {
      await insert(trx, 'holder');
      await held;
    });
    await new Promise((resolve) => setImmediate(resolve));

    const waited = await handle.within(200, (kysely) => insert(kysely, 'waiter')).catch((error: unknown) => error);
    letGo();
    await holder;
    expect(waited).toBeInstanceOf(DeadlineExceeded);
    expect((waited as Error).message).toMatch(engine === 'sqlite' ? /busy with other writes until the deadline/ : /no database connection became available within 200 ms/);
    expect((await handle.kysely.selectFrom('contact_submission').select('name').execute()).map((r) => r.name)).toEqual(['holder']);
  });

  it("ends the wait for another session's lock at the deadline, not the statement's own bound, and the write never lands", async () => {
    db = await openTestDb(engine, { statementTimeoutMs: 60_000 });
    const release = await lockElsewhere(engine, db.url);
    const started = Date.now();
    // In a transaction: on PostgreSQL the statement waiting on the lock is cancelled at the deadline,
    // and the COMMIT after it is refused in any case.
    const waited = await db.handle.within(300, (kysely) => kysely.transaction().execute((trx) => insert(trx, 'waiter'))).catch((error: unknown) => error);
    const waitedMs = Date.now() - started;
    await release();
    // SQLite reports the lock itself (SQLITE_BUSY) once the deadline stops the retries;
    // PostgreSQL's statement is still waiting on the server when the deadline answers.
    if (engine === 'sqlite') expect(waited).toMatchObject({ code: 'SQLITE_BUSY' });
    else expect(waited).toBeInstanceOf(DeadlineExceeded);
    // Well before the lock budget (SQLite) or the 60 s statement timeout (PostgreSQL) would end it.
    expect(waitedMs).toBeLessThan(SQLITE_LOCK_WAIT_MS);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await countRows(db.handle)).toBe(0);
  });

  it('leaves no timer behind, whether the work succeeded, failed or ran out of time', async () => {
    db = await openTestDb(engine);
    const handle = db.handle;
    await handle.within(60_000, (kysely) => insert(kysely, 'warm'));
    const tracked = trackTimers();
    try {
      await handle.within(60_000, (kysely) => insert(kysely, 'ok'));
      await expect(handle.within(60_000, (kysely) => insert(kysely, 'ok'))).rejects.toThrow();
      const passed = Deadline.after(50);
      await expect(handle.within(passed, async (kysely) => (await fired(passed.signal), insert(kysely, 'late')))).rejects.toBeInstanceOf(DeadlineExceeded);
      const mine = Deadline.after(60_000);
      await handle.within(mine, (kysely) => insert(kysely, 'mine'));
      mine.dispose();
      // One deadline timer a call, each cleared or fired (pg's pool keeps timers of its own for idle clients).
      expect(tracked.started()).toBeGreaterThanOrEqual(4);
      expect(tracked.holding()).toEqual([]);
    } finally {
      tracked.stop();
    }
  });
});

/** On PostgreSQL a statement already sent runs at the server; SQLite runs it in this process, so there is nothing to cancel. */
describe('DbHandle.within on postgres, a statement already at the server', () => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  it('cancels a lone statement still running at the server when the deadline fires: a write never lands late', async () => {
    db = await openTestDb('postgres', { statementTimeoutMs: 60_000 });
    const started = Date.now();
    // One statement, no transaction: it sleeps 1.5 s at the server, then inserts.
    const late = sql`insert into contact_submission (name, work_email, priority, created_at, idempotency_key) select 'late', 'late@example.com', 'standard', 1, 'late' from pg_sleep(1.5)`;
    const waited = await db.handle.within(300, (kysely) => late.execute(kysely)).catch((error: unknown) => error);
    expect(waited).toBeInstanceOf(DeadlineExceeded);
    expect(Date.now() - started).toBeLessThan(1_500);
    // Past the sleep: without the cancel the row would be there.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await countRows(db.handle)).toBe(0);
    const running = await db.handle.kysely.selectFrom(sql<{ query: string }>`pg_stat_activity`.as('a')).select('query').where(sql<boolean>`query like '%pg_sleep(1.5)%' and state = 'active' and pid <> pg_backend_pid()`).execute();
    expect(running).toEqual([]);
    // The pooled connection the cancel reached is whole: the next statement on it runs.
    await db.handle.within(5_000, (kysely) => insert(kysely, 'after'));
    expect(await countRows(db.handle)).toBe(1);
  });
});

/**
 * The timers the data layer (src/db/) starts from now on, through the global setTimeout it calls:
 * how many, and those still pending that would keep the process alive (neither fired, cleared nor unref'd).
 */
function trackTimers() {
  const pending = new Set<NodeJS.Timeout>();
  let started = 0;
  const realSet = globalThis.setTimeout;
  const realClear = globalThis.clearTimeout;
  const set = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((callback: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    // Who called setTimeout: the first frame outside this file and the spy.
    const caller = (new Error().stack ?? '').split('\n').slice(1).find((frame) => !/deadline\.test\.ts|node_modules\/(vitest|@vitest|tinyspy)\//.test(frame)) ?? '';
    const ours = /\/src\/db\//.test(caller);
    if (ours) started += 1;
    const timer: NodeJS.Timeout = realSet(
      (...passed: unknown[]) => {
        pending.delete(timer);
        callback(...passed);
      },
      ms,
      ...args,
    );
    if (ours) pending.add(timer);
    return timer;
  }) as typeof setTimeout);
  const clear = vi.spyOn(globalThis, 'clearTimeout').mockImplementation((timer) => {
    pending.delete(timer as NodeJS.Timeout);
    realClear(timer);
  });
  return {
    started: () => started,
    holding: () => [...pending].filter((timer) => timer.hasRef()),
    stop() {
      set.mockRestore();
      clear.mockRestore();
    },
  };
}

/** Another session holding the write lock (SQLite: BEGIN IMMEDIATE; PostgreSQL: LOCK TABLE); resolves to its release. */
async function lockElsewhere(engine: string, url: string): Promise<() => Promise<void>> {
  if (engine === 'sqlite') {
    const other = new Database(url);
    other.exec('begin immediate');
    return async () => {
      other.exec('rollback');
      other.close();
    };
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('begin');
  await client.query('lock table contact_submission in access exclusive mode');
  return async () => {
    await client.query('rollback');
    await client.end();
  };
}
