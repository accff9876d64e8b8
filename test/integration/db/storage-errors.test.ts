/**
 * A database that stops answering, or stops taking writes, is reported as
 * such by the request's deadline: the data API answers 503 `{code, message}` (not a 500 after
 * 5.5 s), contacts answer 502, and /readyz says not ready while writes fail and ready again
 * once they work. Every failure is real: a PostgreSQL behind a TCP proxy that goes silent, a
 * database that stops accepting connections, a SQLite file on a full tmpfs, a PostgreSQL
 * database switched to read-only. Nothing is timed (the machine may be busy): a failure stays in
 * place until the answers have come, so an answer that waited for the database instead of its
 * deadline never comes and fails by the test's timeout.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { dataEndpoint } from '../../../src/features/stats/data.endpoint.ts';
import { callEndpoint } from '../../helpers/endpoint.ts';
import { createTempDatabase, pgAdminUrl, type TempDatabase } from '../../helpers/postgres.ts';
import { ENGINES, openTestDb, testServices, type TestDb, type TestEngine } from '../../helpers/contact-fixtures.ts';
import { postContact, serve, sleep, storedContacts, timedFetch, type ServedDb } from '../../helpers/storage-helpers.ts';

const DATA_QUERY = '/api/v1/public/data?startDate=2026-07-01&endDate=2026-07-31';
/** Another range for the request made while the database is up: the edge caches its 200. */
const WARM_QUERY = '/api/v1/public/data?startDate=2026-06-01&endDate=2026-06-30';

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: pgAdminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const databaseName = (url: string) => new URL(url).pathname.slice(1);

/** End every session on `url`'s database but ours, so the server's next query opens a new one. */
function terminateSessions(url: string): Promise<unknown> {
  return admin((c) => c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [databaseName(url)]));
}

/**
 * A TCP proxy in front of PostgreSQL that can go silent: connections stay open and nothing
 * more arrives, as when a database host hangs or a network path drops packets.
 */
async function silenceableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let silent = false;
  const server: Server = createServer((client) => {
    sockets.add(client);
    client.on('error', () => {});
    if (silent) return;
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(upstream);
    upstream.on('error', () => client.destroy());
    client.on('data', (chunk) => {
      if (!silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!silent) client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    silence: () => {
      silent = true;
    },
    async kill() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('PostgreSQL going away after the server started', () => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('answers the data API 503 {code, message} and a contact 502, each by its deadline, when the database goes silent', async () => {
    const temp = await createTempDatabase('storage');
    cleanups.push(() => temp.drop());
    const proxy = await silenceableProxy(new URL(temp.url));
    cleanups.push(() => proxy.kill());
    const viaProxy = new URL(temp.url);
    viaProxy.port = String(proxy.port);
    const served = await serve('postgres', viaProxy.toString());
    // Stop the server before the proxy dies: its hung queries then end with their sockets.
    cleanups.push(async () => {
      const stopping = served.server.stop();
      await proxy.kill();
      await stopping;
    });
    const origin = served.server.url;
    expect((await timedFetch(`${origin}${WARM_QUERY}`)).status).toBe(200);

    proxy.silence();
    const [data, contact] = await Promise.all([timedFetch(`${origin}${DATA_QUERY}`), postContact(origin, 'silent')]);

    expect(data.status).toBe(503);
    expect(data.contentType).toBe('application/json; charset=utf-8');
    expect(data.body).toEqual({ code: 'service_unavailable', message: 'The statistics database is unavailable just now.' });
    expect(contact.status).toBe(502);
    expect(contact.body).toMatchObject({ code: 'upstream_unavailable' });
  });

  it('answers the data API 503 and a contact 502 when the database stops accepting connections', async () => {
    const served = await serve('postgres');
    const name = databaseName(served.url);
    cleanups.push(async () => {
      await admin((c) => c.query(`alter database ${name} allow_connections true`));
      await served.stop();
    });
    const origin = served.server.url;
    expect((await timedFetch(`${origin}${WARM_QUERY}`)).status).toBe(200);

    await admin((c) => c.query(`alter database ${name} allow_connections false`));
    await terminateSessions(served.url);
    await sleep(200);
    const data = await timedFetch(`${origin}${DATA_QUERY}`);
    const contact = await postContact(origin, 'refused');

    expect(data.status).toBe(503);
    expect(data.body).toMatchObject({ code: 'service_unavailable' });
    expect(contact.status).toBe(502);
  });
});

describe.each(ENGINES)('the data API on %s while a long transaction holds the writing connection', (engine) => {
  let db: TestDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  // PostgreSQL with a pool of one: the read needs that connection, so it answers 503 by its
  // deadline instead of waiting for it. SQLite reads on a connection of their own (WAL readers
  // never wait for the writer), so the read answers 200 while the writer holds on.
  const status = engine === 'postgres' ? 503 : 200;

  it(`answers ${status} while the transaction is still open instead of waiting for it`, async () => {
    db = await openTestDb(engine, { poolSize: 1 });
    // Held, as a long materialization would, until the read has answered.
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    const holder = db.handle.kysely.transaction().execute(async (trx) => {
      await trx.insertInto('daily_stat').values({ day: '2026-06-01', txn_count: 1, impr_count: 1, revenue_minor: 1, materialized_at: 1 }).execute();
      await held;
    });
    await sleep(50);

    const response = await callEndpoint(dataEndpoint, new Request(`http://127.0.0.1${DATA_QUERY}`), testServices(db.handle));
    letGo();
    await holder;
    expect(response.status).toBe(status);
    if (status === 503) {
      expect(response.headers.get('retry-after')).toBe('5');
      expect(await response.json()).toEqual({ code: 'service_unavailable', message: 'The statistics database is unavailable just now.' });
    }
  });
});

interface WriteBreaker {
  /** A database URL for the server whose writes this breaker can stop. */
  url(): Promise<string>;
  /** Make writes fail for real. */
  break(url: string): Promise<void>;
  /** Make them work again. */
  repair(url: string): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * SQLite: the database lives on a 1 MiB tmpfs, filled up by another file, so SQLite gets a
 * real ENOSPC (SQLITE_FULL). Root ignores file modes, so chmod cannot make the file read-only
 * here; a tmpfs of its own is what really fails. Needs permission to mount (root).
 */
function sqliteOnSmallTmpfs(): WriteBreaker {
  const dir = mkdtempSync(join(tmpdir(), 'storage-full-'));
  const filler = join(dir, 'filler');
  let mounted = false;
  return {
    async url() {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
      mounted = true;
      return join(dir, 'site.db');
    },
    async break() {
      const fd = openSync(filler, 'w');
      const chunk = Buffer.alloc(16 * 1024, 1);
      try {
        for (;;) writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      } finally {
        closeSync(fd);
      }
    },
    async repair() {
      rmSync(filler);
    },
    async cleanup() {
      if (mounted) execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * PostgreSQL: `default_transaction_read_only` on the database, and its sessions ended so the
 * server's new ones take it up: every write then fails with a real 25006
 * (read_only_sql_transaction).
 */
function postgresReadOnly(): WriteBreaker {
  let temp: TempDatabase | undefined;
  const set = async (url: string, value: 'on' | 'off') => {
    await admin((c) => c.query(`alter database ${databaseName(url)} set default_transaction_read_only = ${value}`));
    await terminateSessions(url);
    await sleep(300);
  };
  return {
    async url() {
      temp = await createTempDatabase('storage');
      return temp.url;
    },
    break: (url) => set(url, 'on'),
    repair: (url) => set(url, 'off'),
    async cleanup() {
      await temp?.drop();
    },
  };
}

const breakers: Record<TestEngine, () => WriteBreaker> = { sqlite: sqliteOnSmallTmpfs, postgres: postgresReadOnly };

describe.each(ENGINES)('readiness on %s when writes fail', (engine) => {
  let served: ServedDb | undefined;
  let breaker: WriteBreaker | undefined;
  afterEach(async () => {
    await served?.server.stop();
    await breaker?.cleanup();
    served = undefined;
    breaker = undefined;
  });

  it('reports /readyz 503 while contacts fail for want of storage, and ready again once writes work', async () => {
    breaker = breakers[engine]();
    served = await serve(engine, await breaker.url());
    const origin = served.server.url;
    expect((await timedFetch(`${origin}/readyz`)).status).toBe(200);

    await breaker.break(served.url);
    const refused = await postContact(origin, 'refused');
    expect(refused.status).toBe(502);
    // Readiness answers from a result at most about a second old (src/lib/probes.ts).
    await vi.waitFor(async () => expect(await timedFetch(`${origin}/readyz`)).toMatchObject({ status: 503, body: { status: 'unavailable', database: engine } }), { timeout: 60_000, interval: 200 });
    // Still not ready on a later look: the probe write fails too, it is not a one-off flag.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await timedFetch(`${origin}/readyz`)).status).toBe(503);
    // A burst of probes shares the failed check of its second (two if it straddles one): a line per check, not per probe.
    const warnedBefore = served.server.output.filter((line) => line.includes('readiness check failed')).length;
    // (On a busy machine the burst may span a few seconds: fewer lines than half the probes.)
    const burst = await Promise.all(Array.from({ length: 50 }, () => timedFetch(`${origin}/readyz`)));
    expect(burst.every((answer) => answer.status === 503)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(served.server.output.filter((line) => line.includes('readiness check failed')).length - warnedBefore).toBeLessThan(burst.length / 2);
    // The failures were the storage's own: disk full, read-only.
    expect(served.server.output.join('\n')).toMatch(engine === 'sqlite' ? /SQLITE_FULL/ : /read-only transaction/);

    await breaker.repair(served.url);
    await vi.waitFor(async () => expect((await timedFetch(`${origin}/readyz`)).status).toBe(200), { timeout: 60_000, interval: 200 });
    const accepted = await postContact(origin, 'accepted');
    expect(accepted.status).toBe(200);
    expect((await storedContacts(served.url)).map((row) => row.name)).toEqual(['accepted']);
  });
});
