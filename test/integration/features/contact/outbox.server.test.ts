import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startOutbox } from '../../../../src/app/jobs/outbox.ts';
import { createDb, type DbHandle } from '../../../../src/db/create-db.ts';
import { migrateToLatest } from '../../../../src/db/migrations/index.ts';
import { ContactDelivery } from '../../../../src/features/contact/contact-delivery.ts';
import type { ContactPayload } from '../../../../src/features/contact/contact-payload.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { deliverPending } from '../../../../src/features/contact/outbox.server.ts';
import { callContact, ENGINES, contactRequest, json, openTestDb, testServices, validPayload, type TestDb } from '../../../helpers/contact-fixtures.ts';

interface Received {
  headers: IncomingMessage['headers'];
  body: unknown;
}

/** A real webhook receiver on a free port; `respond` decides each answer. */
class Webhook {
  received: Received[] = [];
  respond: (res: ServerResponse, index: number) => void = (res) => res.end('ok');
  #server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const index = this.received.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }) - 1;
      this.respond(res, index);
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks/contact`;
  }
  stop(): Promise<void> {
    if (!this.#server.listening) return Promise.resolve();
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
  ids(): number[] {
    return this.received.map((r) => (r.body as { id: number }).id);
  }
}

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);

describe.each(ENGINES)('contact outbox on %s', (engine) => {
  let db: TestDb;
  let webhook: Webhook;

  beforeAll(async () => {
    db = await openTestDb(engine);
  });
  afterAll(async () => {
    await db?.dispose();
  });
  beforeEach(async () => {
    await db.handle.kysely.deleteFrom('contact_submission').execute();
    webhook = new Webhook();
    await webhook.start();
  });
  afterEach(async () => {
    await webhook.stop();
  });

  const queue = (overrides: Partial<ContactPayload> = {}, now = T0) =>
    storeSubmission(db.handle, { ...validPayload, ...overrides }, { deliver: true, now });
  /** The submission's webhook delivery (planned by the outbox's first run). */
  const row = (id: number) => db.handle.kysely.selectFrom('contact_delivery').selectAll().where('submission_id', '=', id).where('channel', '=', 'webhook').executeTakeFirstOrThrow();

  it('posts a pending submission to the webhook once and marks it delivered', async () => {
    const { id } = await queue();
    const deps = { db: db.handle, webhookUrl: webhook.url, allowPrivate: true, now: () => T0 + 10 };

    expect(await deliverPending(deps)).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    expect(webhook.received).toHaveLength(1);
    const [request] = webhook.received;
    expect(request!.headers['content-type']).toBe('application/json');
    expect(request!.headers['idempotency-key']).toBe(`contact-submission-${id}`);
    expect(ContactDelivery.parse(request!.body)).toEqual({
      type: 'contact_submission',
      id,
      submitted_at: '2025-06-01T12:00:00.000Z',
      name: validPayload.name,
      job_title: validPayload.job_title,
      work_email: validPayload.work_email,
      priority: validPayload.priority,
      message: validPayload.message,
    });
    expect(await row(id)).toMatchObject({ state: 'delivered', delivered_at: T0 + 10, attempts: 1, next_attempt_at: null, last_error: null });

    expect(await deliverPending({ ...deps, now: () => T0 + 3_600_000 })).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(webhook.received).toHaveLength(1);
  });

  it('leaves submissions stored without a webhook alone', async () => {
    await storeSubmission(db.handle, validPayload, { deliver: false, now: T0 });
    expect(await deliverPending({ db: db.handle, webhookUrl: webhook.url, allowPrivate: true, now: () => T0 + 10 })).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(webhook.received).toHaveLength(0);
  });

  // markSpam pauses a submission's deliveries in a second statement; a run between the two, or a
  // spam_reason written any other way, must still find nothing of it to plan or send.
  it('neither plans nor sends a submission marked spam while it was queued, whatever its due time says', async () => {
    const deps = { db: db.handle, webhookUrl: webhook.url, allowPrivate: true, now: () => T0 + 10 };
    const spam = (id: number) => db.handle.kysely.updateTable('contact_submission').set({ spam_reason: 'looks like an advert' }).where('id', '=', id).execute();
    const unplanned = await queue();
    await spam(unplanned.id);
    const planned = await queue({ name: 'Planned first' });
    const { id: plannedDelivery } = await db.handle.kysely
      .insertInto('contact_delivery')
      .values({ submission_id: planned.id, channel: 'webhook', state: 'pending', attempts: 0, next_attempt_at: T0, created_at: T0 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await spam(planned.id);

    expect(await deliverPending(deps)).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(webhook.received).toHaveLength(0);
    expect(await db.handle.kysely.selectFrom('contact_delivery').select(['id', 'state', 'attempts']).where('submission_id', 'in', [unplanned.id, planned.id]).execute()).toEqual([
      { id: plannedDelivery, state: 'pending', attempts: 0 },
    ]);
  });

  it('retries a failing webhook on the documented schedule, jitter only lengthening it, until it takes the submission', async () => {
    const { id } = await queue();
    webhook.respond = (res, index) => {
      res.statusCode = index < 2 ? 503 : 204;
      res.end();
    };
    let clock = T0;
    const deps = { db: db.handle, webhookUrl: webhook.url, allowPrivate: true, now: () => clock, random: () => 0.5 };

    expect(await deliverPending(deps)).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    // First failure: 30 s, lengthened by 0.5 x 10 %.
    expect(await row(id)).toMatchObject({ state: 'pending', attempts: 1, next_attempt_at: T0 + 31_500, last_error: 'HTTP 503 Service Unavailable' });

    clock = T0 + 31_499;
    expect(await deliverPending(deps)).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(webhook.received).toHaveLength(1);

    clock = T0 + 31_500;
    expect(await deliverPending(deps)).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    // Second failure: 2 min, lengthened by 0.5 x 10 %.
    expect(await row(id)).toMatchObject({ attempts: 2, next_attempt_at: clock + 126_000 });

    clock += 126_000;
    expect(await deliverPending(deps)).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    expect(await row(id)).toMatchObject({ state: 'delivered', attempts: 3, last_error: null, delivered_at: clock });
    expect(webhook.ids()).toEqual([id, id, id]);
  });

  it('gives up on a webhook that does not answer within the request timeout and records why', async () => {
    const { id } = await queue();
    webhook.respond = () => {}; // never answers
    const result = await deliverPending({ db: db.handle, webhookUrl: webhook.url, allowPrivate: true, now: () => T0 }, { requestTimeoutMs: 200 });
    expect(result).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    expect(await row(id)).toMatchObject({ state: 'pending', attempts: 1, last_error: 'no answer within 200 ms' });
  });

  it('records a refused connection as the error and keeps the submission', async () => {
    const { id } = await queue();
    const closedUrl = webhook.url;
    await webhook.stop();
    const result = await deliverPending({ db: db.handle, webhookUrl: closedUrl, allowPrivate: true, now: () => T0 });
    expect(result).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    const stored = await row(id);
    expect(stored).toMatchObject({ state: 'pending' });
    expect(stored.last_error).toContain('ECONNREFUSED');
  });

  it.each([307, 308])('does not follow a %i redirect: the submission is never sent to the Location, stays pending and the status is logged', async (status) => {
    const { id } = await queue();
    // The place the redirect points to: a second real server that must see nothing.
    const elsewhere = new Webhook();
    await elsewhere.start();
    webhook.respond = (res) => {
      res.writeHead(status, { location: elsewhere.url }).end();
    };
    const logged: Array<Record<string, unknown>> = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line) as Record<string, unknown>) });
    try {
      const result = await deliverPending({ db: db.handle, webhookUrl: webhook.url, allowPrivate: true, now: () => T0, random: () => 0.5, log });
      expect(result).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
      expect(webhook.ids()).toEqual([id]);
      expect(elsewhere.received).toEqual([]);
      const stored = await row(id);
      expect(stored).toMatchObject({ state: 'pending', attempts: 1, next_attempt_at: T0 + 31_500 });
      expect(stored.last_error).toBe(`HTTP ${status} ${STATUS_CODES[status]}: redirects are not followed (Location: ${elsewhere.url})`);
      expect(logged).toEqual([expect.objectContaining({ msg: 'contact delivery failed', submission: id, status })]);
    } finally {
      await elsewhere.stop();
    }
  });

  it('keeps no credentials of a redirect target in the stored error', async () => {
    const { id } = await queue();
    webhook.respond = (res) => {
      res.writeHead(302, { location: 'https://deploy:s3cr3t-pw@elsewhere.example/hook' }).end();
    };
    await deliverPending({ db: db.handle, webhookUrl: webhook.url, allowPrivate: true, now: () => T0 });
    const stored = await row(id);
    expect(stored.last_error).toContain('elsewhere.example/hook');
    expect(stored.last_error).not.toContain('s3cr3t-pw');
  });

  it('delivers each submission exactly once when two instances run at the same time', async () => {
    const ids = [];
    for (let i = 0; i < 12; i += 1) ids.push((await queue({ name: `Person ${i}` }, T0 + i)).id);
    // Slow answers make the two runs overlap on every row.
    webhook.respond = (res) => setTimeout(() => res.end('ok'), 5);
    const second: DbHandle = createDb(db.url);
    try {
      const deps = (handle: DbHandle) => ({ db: handle, webhookUrl: webhook.url, allowPrivate: true, now: () => T0 + 1_000 });
      const [a, b] = await Promise.all([deliverPending(deps(db.handle)), deliverPending(deps(second))]);
      expect(a.delivered + b.delivered).toBe(12);
      expect(a.failed + b.failed).toBe(0);
      expect(webhook.ids().sort((x, y) => x - y)).toEqual(ids);
      // Neither instance ever sends a delivered row again.
      await Promise.all([deliverPending(deps(db.handle)), deliverPending(deps(second))]);
      expect(webhook.received).toHaveLength(12);
    } finally {
      await second.close();
    }
  });

  it('keeps answering contact submissions while the webhook hangs', async () => {
    await queue();
    webhook.respond = () => {};
    const services = testServices(db.handle, { CONTACT_WEBHOOK_URL: webhook.url, CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' });
    const run = deliverPending({ db: db.handle, webhookUrl: webhook.url, allowPrivate: true }, { requestTimeoutMs: 1_000 });
    await vi.waitFor(() => expect(webhook.received).toHaveLength(1));

    const response = await callContact(contactRequest(json({ ...validPayload, name: 'During the outage' })), services);
    expect(response.status).toBe(200);
    expect(await run).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    const stored = await db.handle.kysely.selectFrom('contact_submission').select(['name', 'delivery_status']).where('name', '=', 'During the outage').execute();
    expect(stored).toEqual([{ name: 'During the outage', delivery_status: 'pending' }]);
  });

  it('polls on an interval once started and stops cleanly', async () => {
    const services = testServices(db.handle, { CONTACT_WEBHOOK_URL: webhook.url, CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' });
    const outbox = startOutbox({ services, intervalMs: 20 });
    try {
      const { id } = await queue({}, Date.now());
      await vi.waitFor(async () => expect((await row(id)).state).toBe('delivered'));
    } finally {
      await outbox.stop();
    }
    await queue({}, Date.now());
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(webhook.received).toHaveLength(1);
  });
});

describe('contact outbox without a database', () => {
  it('reports the failure instead of throwing', async () => {
    const handle = createDb('postgres://postgres@127.0.0.1:1/contact');
    try {
      const result = await deliverPending({ db: handle, webhookUrl: 'http://127.0.0.1:1/hook', allowPrivate: true });
      expect(result.delivered + result.failed).toBe(0);
      expect(String(result.error)).toContain('ECONNREFUSED');
    } finally {
      await handle.close();
    }
  });

  it('does nothing when no webhook is configured', async () => {
    const handle = createDb(':memory:');
    try {
      expect((await migrateToLatest(handle.kysely, handle.engine)).error).toBeUndefined();
      await storeSubmission(handle, validPayload, { deliver: true });
      let calls = 0;
      const outbox = startOutbox({
        services: testServices(handle),
        intervalMs: 10,
        fetch: async () => {
          calls += 1;
          return new Response(null, { status: 204 });
        },
      });
      await new Promise((resolve) => setTimeout(resolve, 60));
      await outbox.stop();
      expect(calls).toBe(0);
      const row = await handle.kysely.selectFrom('contact_submission').select('delivery_status').executeTakeFirstOrThrow();
      expect(row.delivery_status).toBe('pending');
    } finally {
      await handle.close();
    }
  });
});
