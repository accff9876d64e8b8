/**
 * When the database cannot take a submission, `POST /api/contact` answers 502 by its deadline
 * and stores nothing (docs/interface.md section 3). Every failure here is real:
 * a closed port, a server that never answers, a path that is not a database, held locks. The
 * endpoint gets a 4 s deadline, the room the 5 s leave after the response itself; the store's
 * budget comes from it as in production. No test here times the answer (the machine may be
 * busy): each asserts what ended the wait, read from the log (the deadline, the statement
 * timeout, the refusal), and a hang fails by the test's own timeout.
 */
import { mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import Database from 'better-sqlite3';
import { sql } from 'kysely';
import pg from 'pg';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../../../src/db/create-db.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';
import { callContact, answer, contactRequest, countRows, json, openTestDb, testServices, validPayload } from '../../../helpers/contact-fixtures.ts';

/** The endpoint's deadline, from the request's arrival. */
const DEADLINE_MS = 4_000;

async function post(handle: DbHandle, headers?: Record<string, string>) {
  const services = testServices(handle);
  const lines: string[] = [];
  services.log = pino(
    { level: 'error' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  const response = await callContact(contactRequest(json(validPayload), headers), services, { deadlineMs: DEADLINE_MS });
  return { response, logged: lines.join('') };
}

describe('a submission the database cannot take', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('answers 502 upstream_unavailable when PostgreSQL refuses connections', async () => {
    const handle = createDb('postgres://postgres@127.0.0.1:1/contact');
    cleanups.push(() => handle.close());
    const { response, logged } = await post(handle);
    expect(await answer(response)).toMatchInlineSnapshot(`
      {
        "body": {
          "code": "upstream_unavailable",
          "detail": "Your message could not be stored just now, so it was not received.",
          "resolution": "Please try again in a minute. Resending with the same Idempotency-Key never stores it twice.",
          "status": 502,
          "title": "Upstream service unavailable",
          "type": "about:blank",
        },
        "contentType": "application/problem+json; charset=utf-8",
        "status": 502,
      }
    `);
    expect(logged).toContain('contact submission not stored');
    expect(logged).toContain('ECONNREFUSED');
  });

  it('answers 502 by its deadline when PostgreSQL accepts the connection but never answers', async () => {
    // A listener that takes the TCP connection and stays silent: the client waits for the
    // server's first message until our deadline, not its own 5 s connection timeout.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    const handle = createDb(`postgres://postgres@127.0.0.1:${port}/contact`);
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await handle.close();
    });
    const { response, logged } = await post(handle);
    expect(response.status).toBe(502);
    expect(logged).toContain('no database connection became available within');
  });

  it('answers 502 when PostgreSQL holds the table locked, and the submission does not land later', async () => {
    const db = await openTestDb('postgres');
    cleanups.push(() => db.dispose());
    const locker = new pg.Client({ connectionString: db.url });
    // Should an assertion fail before the rollback, dropping the database ends this session.
    locker.on('error', () => {});
    await locker.connect();
    await locker.query('begin');
    await locker.query('lock table contact_submission in access exclusive mode');

    const { response, logged } = await post(db.handle, { 'content-type': 'application/json', 'idempotency-key': 'locked-pg' });
    expect(response.status).toBe(502);
    expect(logged).toContain('canceling statement due to statement timeout');

    await locker.query('rollback');
    await locker.end();
    // The database cancelled the insert itself (statement_timeout), so releasing the lock
    // cannot commit a submission we told the client was not received.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await countRows(db.handle)).toBe(0);
  });

  it('answers 502 when the SQLite path is a directory, not a database', async () => {
    const path = tempSqliteUrl();
    mkdirSync(path);
    const handle = createDb(path);
    cleanups.push(() => handle.close());
    const { response } = await post(handle);
    expect(response.status).toBe(502);
  });

  it('answers 502 by its deadline while another connection holds the SQLite write lock, and stores nothing', async () => {
    const db = await openTestDb('sqlite');
    cleanups.push(() => db.dispose());
    // A second process's writer, as another instance or an export would be: BEGIN IMMEDIATE
    // takes the write lock and keeps it until rollback.
    const other = new Database(db.url);
    other.exec('begin immediate');

    const { response, logged } = await post(db.handle);
    expect(response.status).toBe(502);
    expect(logged).toMatch(/database is locked/i);

    other.exec('rollback');
    other.close();
    expect(await countRows(db.handle)).toBe(0);
    expect((await callContact(contactRequest(json(validPayload)), testServices(db.handle))).status).toBe(200);
    // SQLite never waits for the lock inside a call (that would stop the event loop): the
    // driver retries on timers instead (src/db/sqlite-driver.ts).
    const { rows } = await sql<{ timeout: number }>`pragma busy_timeout`.execute(db.handle.kysely);
    expect(rows).toEqual([{ timeout: 0 }]);
  });
});
