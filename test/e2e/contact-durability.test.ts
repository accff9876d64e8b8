/**
 * A contact submission is never lost: submissions sent concurrently to the real server process
 * while it is killed with SIGKILL (no shutdown hook runs, nothing is flushed by us). After a restart on
 * the same database, every submission that was answered 200 is stored exactly once, with what was
 * sent; the ones that got no answer are resent with their Idempotency-Key, which stores each of
 * them once too, whether or not the killed process had committed it before dying.
 *
 * On SQLite (WAL, synchronous=NORMAL: a commit survives a process kill) and on PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../../src/db/create-db.ts';
import { createTempDatabase, type TempDatabase } from '../helpers/postgres.ts';
import { startServer, tempSqliteUrl, type RunningServer } from '../helpers/server.ts';

const SUBMISSIONS = 300;
/** Requests in flight at once. */
const CONCURRENCY = 25;
/** The process is killed once this many submissions have been answered 200. */
const KILL_AFTER_SUCCESSES = 120;

/** Limits far above the test's volume: a 429 would say nothing about durability. */
const HIGH_LIMITS = {
  RATE_LIMIT_CONTACT_HOUR: '100000',
  RATE_LIMIT_CONTACT_DAY: '100000',
  RATE_LIMIT_SITE_MINUTE: '100000',
};

interface Submission {
  key: string;
  body: { name: string; job_title: string; work_email: string; priority: 'high' | 'standard' | 'message'; message: string };
}

type Answer = { ok: true; status: number; replayed: boolean } | { ok: false; error: string };

function submissions(runId: string): Submission[] {
  const priorities = ['high', 'standard', 'message'] as const;
  return Array.from({ length: SUBMISSIONS }, (_, i) => ({
    key: randomUUID(),
    body: {
      name: `durability ${runId} #${i}`,
      job_title: `Tester ${i}`,
      work_email: `tester${i}@example.com`,
      priority: priorities[i % 3]!,
      message: `Submission ${i} of run ${runId}.${'x'.repeat(i % 50)}`,
    },
  }));
}

async function send(url: string, submission: Submission): Promise<Answer> {
  try {
    const response = await fetch(`${url}/api/contact`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': submission.key },
      body: JSON.stringify(submission.body),
      // The server answers within 5 s by contract; a dead one refuses or resets at once.
      signal: AbortSignal.timeout(15_000),
    });
    await response.arrayBuffer();
    return { ok: true, status: response.status, replayed: response.headers.get('idempotent-replayed') === 'true' };
  } catch (error) {
    return { ok: false, error: String((error as Error).cause ?? error) };
  }
}

/** Run `task` over `items` with at most `limit` in flight; `onDone` sees each answer as it lands. */
async function pool<T, R>(items: readonly T[], limit: number, task: (item: T) => Promise<R>, onDone: (item: T, result: R) => void): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      onDone(item, await task(item));
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
}

interface StoredRow {
  idempotency_key: string | null;
  name: string;
  job_title: string | null;
  work_email: string;
  priority: string;
  message: string | null;
}

async function storedRows(databaseUrl: string, runId: string): Promise<StoredRow[]> {
  const handle = createDb(databaseUrl);
  try {
    return await handle.kysely
      .selectFrom('contact_submission')
      .select(['idempotency_key', 'name', 'job_title', 'work_email', 'priority', 'message'])
      .where('name', 'like', `durability ${runId} #%`)
      .execute();
  } finally {
    await handle.close();
  }
}

const ENGINES = ['sqlite', 'postgres'] as const;

describe.each(ENGINES)('contact submissions across a SIGKILL of the server on %s', (engine) => {
  const servers: RunningServer[] = [];
  let temp: TempDatabase | undefined;

  afterAll(async () => {
    for (const server of servers) await server.stop('SIGKILL');
    await temp?.drop();
  });

  it('stores every submission answered 200 exactly once, and resent ones once too', { timeout: 300_000 }, async () => {
    temp = engine === 'postgres' ? await createTempDatabase('durability') : undefined;
    const databaseUrl = temp?.url ?? tempSqliteUrl();
    const env = { DATABASE_URL: databaseUrl, ...HIGH_LIMITS };
    const runId = randomUUID().slice(0, 8);
    const all = submissions(runId);

    // Phase 1: send everything; kill -9 the server mid-stream, with requests in flight.
    const first = await startServer(env);
    servers.push(first);
    const phase1 = new Map<Submission, Answer>();
    let successes = 0;
    let killed = false;
    await pool(
      all,
      CONCURRENCY,
      (s) => send(first.url, s),
      (s, answer) => {
        phase1.set(s, answer);
        if (answer.ok && answer.status === 200) successes += 1;
        if (!killed && successes >= KILL_AFTER_SUCCESSES) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      },
    );
    expect(killed).toBe(true);
    expect(await first.exited).toBeNull(); // null exit code: ended by the signal, not by exiting
    expect(first.child.signalCode).toBe('SIGKILL');

    const answered200 = all.filter((s) => {
      const a = phase1.get(s);
      return a?.ok === true && a.status === 200;
    });
    const unanswered = all.filter((s) => phase1.get(s)?.ok === false);
    // Nothing else: no 4xx, no 5xx, no 429 (limits are raised).
    expect(answered200.length + unanswered.length).toBe(SUBMISSIONS);
    expect(answered200.length).toBeGreaterThanOrEqual(KILL_AFTER_SUCCESSES);
    // The kill landed mid-stream: some submissions got no answer at all.
    expect(unanswered.length).toBeGreaterThan(0);

    // Phase 2: a new process on the same database; resend what got no answer, same keys.
    const second = await startServer(env);
    servers.push(second);
    const phase2 = new Map<Submission, Answer>();
    await pool(unanswered, CONCURRENCY, (s) => send(second.url, s), (s, answer) => phase2.set(s, answer));
    for (const s of unanswered) expect(phase2.get(s), s.body.name).toMatchObject({ ok: true, status: 200 });
    expect(await second.stop('SIGTERM')).toBe(0);

    const rows = await storedRows(databaseUrl, runId);
    const byKey = new Map<string, StoredRow[]>();
    for (const row of rows) byKey.set(row.idempotency_key ?? '', [...(byKey.get(row.idempotency_key ?? '') ?? []), row]);

    // Every submission answered 200, before the kill or after the restart, is there exactly
    // once and holds what was sent.
    for (const s of all) {
      const stored = byKey.get(s.key) ?? [];
      expect(stored, `${s.body.name} stored ${stored.length} times`).toHaveLength(1);
      expect(stored[0]).toEqual({ idempotency_key: s.key, ...s.body });
    }
    expect(rows).toHaveLength(SUBMISSIONS);
  });
});
