/**
 * Shared by the contact integration tests: a migrated database on either engine (a temp SQLite
 * file, or a throwaway PostgreSQL database), Services around it, request builders, and the
 * contact endpoint called as its route calls it.
 */
import { pino } from 'pino';
import { afterAll, beforeAll } from 'vitest';
import { loadConfig } from '../../src/app/config.ts';
import { createDb, type DbHandle, type DbOptions } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import type { Services } from '../../src/app/services.ts';
import { contactEndpoint, type ContactDeps } from '../../src/features/contact/contact.endpoint.ts';
import type { EndpointLimits } from '../../src/lib/endpoint.ts';
import { callEndpoint } from './endpoint.ts';
import { createTempDatabase } from './postgres.ts';
import { tempSqliteUrl } from './server.ts';
import { NO_METER } from '../../src/lib/meter.ts';

export const ENGINES = ['sqlite', 'postgres'] as const;
export type TestEngine = (typeof ENGINES)[number];

export interface TestDb {
  url: string;
  handle: DbHandle;
  /** Close the handle and drop the database. */
  dispose(): Promise<void>;
}

export async function openTestDb(engine: TestEngine, options: DbOptions = {}): Promise<TestDb> {
  const temp = engine === 'postgres' ? await createTempDatabase('contact') : undefined;
  const url = temp?.url ?? tempSqliteUrl();
  const handle = createDb(url, options);
  const migration = await migrateToLatest(handle.kysely, handle.engine);
  if (migration.error) throw migration.error;
  return {
    url,
    handle,
    async dispose() {
      await handle.close();
      await temp?.drop();
    },
  };
}

export function testServices(handle: DbHandle, env: Record<string, string> = {}): Services {
  return {
    config: loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', ...env }),
    db: handle,
    log: pino({ level: 'silent' }),
    purgeCache: () => {},
    meter: NO_METER,
    assistantIndex: () => {
      throw new Error('no assistant index in this test');
    },
  };
}

/**
 * For a describe block: a migrated database on `engine` opened before its tests and dropped after
 * them, with Services around it. Read `db` and `services` inside the tests, not before.
 */
export function useTestDb(engine: TestEngine): { db: TestDb; services: Services } {
  const suite = {} as { db: TestDb; services: Services };
  beforeAll(async () => {
    suite.db = await openTestDb(engine);
    suite.services = testServices(suite.db.handle);
  });
  afterAll(async () => {
    await suite.db?.dispose();
  });
  return suite;
}

export const CONTACT_URL = 'http://127.0.0.1:4321/api/contact';

/**
 * A POST to /api/contact. A string body is sent as UTF-8 bytes, so that no Content-Type is
 * added behind our back (`new Request` labels string bodies text/plain).
 */
export function contactRequest(
  body: string | Uint8Array | ReadableStream<Uint8Array> | null,
  headers: Record<string, string> = { 'content-type': 'application/json' },
  method = 'POST',
): Request {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return new Request(CONTACT_URL, {
    method,
    headers,
    body: bytes,
    ...(bytes instanceof ReadableStream ? { duplex: 'half' } : {}),
  } as RequestInit);
}

/**
 * `POST /api/contact` through its endpoint, the body read within the route's 32 KiB
 * (src/server/routes.ts; test/unit/features/contact/contact.test.ts keeps CONTACT_LIMITS.bodyBytes equal
 * to it) and the deadline callEndpoint's unless `limits` says otherwise.
 */
export function callContact(request: Request, deps: ContactDeps, limits: Partial<EndpointLimits> = {}): Promise<Response> {
  return callEndpoint(contactEndpoint, request, deps, { bodyLimit: 32 * 1024, ...limits });
}

export const validPayload = {
  name: 'Ada Lovelace',
  job_title: 'Analyst',
  work_email: 'ada@example.com',
  priority: 'high',
  message: 'We would like to talk about header bidding.',
} as const;

export const json = (value: unknown): string => JSON.stringify(value);

/** Status, the headers a client acts on, and the parsed body. */
export async function answer(response: Response): Promise<{ status: number; contentType: string | null; body: unknown }> {
  const text = await response.text();
  return { status: response.status, contentType: response.headers.get('content-type'), body: text ? JSON.parse(text) : null };
}

export async function countRows(handle: DbHandle): Promise<number> {
  const row = await handle.kysely.selectFrom('contact_submission').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}
