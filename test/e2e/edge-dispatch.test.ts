/**
 * The data API and POST /api/contact answered by the edge itself (src/app/route-handlers.ts,
 * src/lib/plain-http.ts) instead of through Astro's pipeline: against the real server process,
 * the answers carry a Content-Length (Astro's adapter streams them chunked), a data 200 still
 * lands in the response cache, and a submission is stored before its 200.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, type DbHandle } from '../../src/db/create-db.ts';
import { rawRequest } from '../helpers/raw-http.ts';
import { startServer, tempSqliteUrl, type RunningServer } from '../helpers/server.ts';

const RANGE = '/api/v1/public/data?startDate=2024-01-01&endDate=2024-01-31';

describe('declared API routes answered by the edge', () => {
  let server: RunningServer;
  let db: DbHandle;

  beforeAll(async () => {
    const url = tempSqliteUrl();
    server = await startServer({ DATABASE_URL: url });
    // The server migrated the file at start; the test writes beside it (WAL).
    db = createDb(url);
  });
  afterAll(async () => {
    await db?.close();
    await server?.stop();
  });

  it('answers a data range with its length, and the next request from the response cache', async () => {
    await db.kysely.insertInto('daily_stat').values({ day: '2024-01-05', txn_count: 5, impr_count: 100, revenue_minor: 1234, materialized_at: Date.now() }).execute();

    const first = await rawRequest(server.url, RANGE);
    expect(first.status).toBe(200);
    expect(first.headers['transfer-encoding']).toBeUndefined();
    expect(first.headers['content-length']).toBe(String(Buffer.byteLength(first.body)));
    expect(JSON.parse(first.body)).toEqual({ status: 'Success', data: [{ date: '2024-01-05', txn_count: 5, impr_count: 100, service_revenue: 12.34 }] });

    // Changed behind the server's back (no purge): a cached answer still says 5.
    await db.kysely.updateTable('daily_stat').set({ txn_count: 6 }).where('day', '=', '2024-01-05').execute();
    const second = await rawRequest(server.url, RANGE);
    expect(second.body).toBe(first.body);
    expect(second.headers['etag']).toBe(first.headers['etag']);

    const head = await rawRequest(server.url, RANGE.replace('2024-01-31', '2024-01-30'), { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['etag']).toMatch(/^"/);
  });

  it('stores a contact submission before answering 200 with its length', async () => {
    const body = JSON.stringify({ name: 'Edge Dispatch', work_email: 'edge@example.com', priority: 'standard', message: 'Sent to the edge handler.' });
    const res = await rawRequest(server.url, '/api/contact', { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }, body });
    expect(res.status).toBe(200);
    expect(res.body).toBe('{"success":true}');
    expect(res.headers['content-length']).toBe('16');
    expect(res.headers['x-request-id']).toBeDefined();
    const rows = await db.kysely.selectFrom('contact_submission').select(['name', 'work_email']).where('name', '=', 'Edge Dispatch').execute();
    expect(rows).toEqual([{ name: 'Edge Dispatch', work_email: 'edge@example.com' }]);
  });
});
