/**
 * Shared by the storage-*.test.ts files: the real server on a SQLite file or a throwaway
 * PostgreSQL database, another process or connection holding the database's write lock, and
 * timed requests.
 */
import { spawn } from 'node:child_process';
import pg from 'pg';
import { createDb } from '../../src/db/create-db.ts';
import { createTempDatabase, type TempDatabase } from './postgres.ts';
import { startServer, tempSqliteUrl, type RunningServer } from './server.ts';
import type { TestEngine } from './contact-fixtures.ts';

export interface ServedDb {
  engine: TestEngine;
  url: string;
  server: RunningServer;
  temp: TempDatabase | undefined;
  stop(): Promise<void>;
}

/** The real server (`node src/app/main.ts`) over a fresh database of `engine`, or over `url`. */
export async function serve(engine: TestEngine, url?: string, env: Record<string, string> = {}): Promise<ServedDb> {
  const temp = url === undefined && engine === 'postgres' ? await createTempDatabase('storage') : undefined;
  const databaseUrl = url ?? temp?.url ?? tempSqliteUrl();
  const server = await startServer({ DATABASE_URL: databaseUrl, LOG_LEVEL: 'info', ...env });
  return {
    engine,
    url: databaseUrl,
    server,
    temp,
    async stop() {
      await server.stop();
      await temp?.drop();
    },
  };
}

export interface HeldLock {
  /** Lets the lock go; resolves once it has been released. */
  release(): Promise<void>;
  /** Resolves once the lock has been released (by `release`, or by the holder's end). */
  released: Promise<void>;
}

/**
 * Another holder of the database's write lock until `release()`: on SQLite a separate process
 * in `BEGIN IMMEDIATE` (as a CLI import or backfill beside the server would be), on PostgreSQL
 * another connection holding `LOCK TABLE contact_submission IN ACCESS EXCLUSIVE MODE` in an
 * open transaction. Resolves once the lock is held. The test decides when it ends (an event,
 * such as the answers it awaits), never a timer: a busy machine changes how long things take.
 */
export async function holdWriteLock(engine: TestEngine, url: string): Promise<HeldLock> {
  if (engine === 'sqlite') {
    const script = `
      const Database = require('better-sqlite3');
      const db = new Database(process.argv[1]);
      db.exec('begin immediate');
      process.stdout.write('locked\\n');
      process.stdin.once('data', () => { db.exec('rollback'); db.close(); process.exit(0); });
    `;
    const child = spawn(process.execPath, ['-e', script, url], { cwd: process.cwd(), stdio: ['pipe', 'pipe', 'inherit'] });
    const released = new Promise<void>((resolve, reject) =>
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lock holder exited with ${code}`)))),
    );
    released.catch(() => {});
    await new Promise<void>((resolve, reject) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        if (chunk.toString().includes('locked')) resolve();
      });
      released.catch(reject);
    });
    return {
      released,
      release() {
        if (child.exitCode === null) child.stdin!.end('release\n');
        return released;
      },
    };
  }
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {});
  await client.connect();
  await client.query('begin');
  await client.query('lock table contact_submission in access exclusive mode');
  let release!: () => void;
  const asked = new Promise<void>((resolve) => (release = resolve));
  const released = asked.then(async () => {
    await client.query('rollback');
    await client.end();
  });
  // Awaited by the tests; a failure here must not also surface as an unhandled rejection.
  released.catch(() => {});
  return {
    released,
    release() {
      release();
      return released;
    },
  };
}

/** Stored submissions, read with a connection of our own. */
export async function storedContacts(url: string): Promise<Array<{ name: string; idempotency_key: string | null }>> {
  const handle = createDb(url);
  try {
    return await handle.kysely.selectFrom('contact_submission').select(['name', 'idempotency_key']).orderBy('id').execute();
  } finally {
    await handle.close();
  }
}

export interface Timed {
  status: number;
  contentType: string | null;
  body: unknown;
  elapsedMs: number;
}

export async function timedFetch(url: string, init?: RequestInit): Promise<Timed> {
  const started = performance.now();
  const response = await fetch(url, init);
  const text = await response.text();
  const elapsedMs = performance.now() - started;
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, contentType: response.headers.get('content-type'), body, elapsedMs };
}

export function postContact(origin: string, name: string, key?: string): Promise<Timed> {
  return timedFetch(`${origin}/api/contact`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin, ...(key === undefined ? {} : { 'idempotency-key': key }) },
    body: JSON.stringify({ name, work_email: 'ada@example.com', priority: 'standard' }),
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
