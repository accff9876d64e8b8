/**
 * Signed outbox deliveries (Standard Webhooks) against a real local receiver that verifies them
 * with the `standardwebhooks` library, on both engines.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startOutbox } from '../../../../src/app/jobs/outbox.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { deliverPending } from '../../../../src/features/contact/outbox.server.ts';
import { ENGINES, testServices, useTestDb, validPayload } from '../../../helpers/contact-fixtures.ts';

const secretOf = () => `whsec_${randomBytes(32).toString('base64')}`;

interface Delivery {
  headers: IncomingMessage['headers'];
  /** What `Webhook.verify` returned, or the message it threw. */
  verified: { ok: true; payload: unknown } | { ok: false; error: string };
}

/** A webhook receiver on a free port that verifies every request with its own secret; 204 when it verifies, 401 otherwise. */
class VerifyingReceiver {
  deliveries: Delivery[] = [];
  /** Answer this status instead of 204 for the first `failFirst` verified requests. */
  failFirst = 0;
  readonly #webhook: Webhook;
  readonly #server: Server;
  url = '';

  constructor(secret: string) {
    this.#webhook = new Webhook(secret);
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        let verified: Delivery['verified'];
        try {
          verified = { ok: true, payload: this.#webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) };
        } catch (error) {
          verified = { ok: false, error: (error as Error).message };
        }
        const index = this.deliveries.push({ headers: req.headers, verified }) - 1;
        res.writeHead(!verified.ok ? 401 : index < this.failFirst ? 503 : 204).end();
      });
    });
  }
  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/hooks/contact`;
    return this;
  }
  stop(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

describe.each(ENGINES)('signed contact webhooks on %s', (engine) => {
  const suite = useTestDb(engine);
  let secret: string;
  let receiver: VerifyingReceiver;

  beforeEach(async () => {
    await suite.db.handle.kysely.deleteFrom('contact_submission').execute();
    secret = secretOf();
    receiver = await new VerifyingReceiver(secret).start();
  });
  afterEach(async () => {
    await receiver.stop();
  });

  // Receivers check webhook-timestamp against their own clock (5 minutes either way), so the
  // outbox's clock starts at the real time here.
  const queue = async () => (await storeSubmission(suite.db.handle, validPayload, { deliver: true, now: Date.now() })).id;
  const row = (id: number) => suite.db.handle.kysely.selectFrom('contact_delivery').selectAll().where('submission_id', '=', id).executeTakeFirstOrThrow();

  it('signs a delivery so that a receiver verifying with standardwebhooks accepts it', async () => {
    const id = await queue();
    expect(await deliverPending({ db: suite.db.handle, webhookUrl: receiver.url, allowPrivate: true, signingSecret: secret })).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    const [delivery] = receiver.deliveries;
    expect(delivery!.verified).toEqual({ ok: true, payload: expect.objectContaining({ type: 'contact_submission', id, work_email: validPayload.work_email }) });
    expect(delivery!.headers).toMatchObject({
      'webhook-id': `contact-submission-${id}`,
      'idempotency-key': `contact-submission-${id}`,
      'webhook-timestamp': expect.stringMatching(/^\d{10}$/),
      'webhook-signature': expect.stringMatching(/^v1,[A-Za-z0-9+/]{43}=$/),
    });
    expect((await row(id)).state).toBe('delivered');
  });

  it('keeps the webhook-id across retries while each attempt carries its own timestamp and signature', async () => {
    const id = await queue();
    receiver.failFirst = 2;
    let clock = Math.ceil(Date.now() / 1000) * 1000; // a whole second (and not before the submission), so the delays show whole in the header
    const deps = { db: suite.db.handle, webhookUrl: receiver.url, allowPrivate: true, signingSecret: secret, now: () => clock, random: () => 0.5 };
    expect(await deliverPending(deps)).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    clock += 31_500; // the first retry's delay, 30 s, with random() = 0.5 (retry-schedule.ts)
    expect(await deliverPending(deps)).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    clock += 126_000;
    expect(await deliverPending(deps)).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });

    expect(receiver.deliveries.map((d) => d.verified.ok)).toEqual([true, true, true]);
    expect(new Set(receiver.deliveries.map((d) => d.headers['webhook-id']))).toEqual(new Set([`contact-submission-${id}`]));
    const timestamps = receiver.deliveries.map((d) => Number(d.headers['webhook-timestamp']));
    expect(timestamps[1]! - timestamps[0]!).toBe(31);
    expect(new Set(receiver.deliveries.map((d) => d.headers['webhook-signature'])).size).toBe(3);
    expect(await row(id)).toMatchObject({ state: 'delivered', attempts: 3 });
  });

  it('fails verification at a receiver holding another secret: the delivery is refused and stays pending', async () => {
    const id = await queue();
    expect(await deliverPending({ db: suite.db.handle, webhookUrl: receiver.url, allowPrivate: true, signingSecret: secretOf() })).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    expect(receiver.deliveries.map((d) => d.verified)).toEqual([{ ok: false, error: 'No matching signature found' }]);
    expect(await row(id)).toMatchObject({ state: 'pending', last_error: 'HTTP 401 Unauthorized' });
  });

  it('sends no signature headers without a secret, and the verifying receiver refuses the delivery', async () => {
    await queue();
    expect(await deliverPending({ db: suite.db.handle, webhookUrl: receiver.url, allowPrivate: true })).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    const [delivery] = receiver.deliveries;
    expect(Object.keys(delivery!.headers).filter((name) => name.startsWith('webhook-'))).toEqual([]);
    expect(delivery!.verified).toEqual({ ok: false, error: 'Missing required headers' });
  });

  it('signs with CONTACT_WEBHOOK_SECRET when the server runs the outbox', async () => {
    const services = testServices(suite.db.handle, { CONTACT_WEBHOOK_URL: receiver.url, CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true', CONTACT_WEBHOOK_SECRET: secret });
    const id = await queue();
    const outbox = startOutbox({ services, intervalMs: 20 });
    try {
      await vi.waitFor(async () => expect((await row(id)).state).toBe('delivered'));
    } finally {
      await outbox.stop();
    }
    expect(receiver.deliveries.map((d) => d.verified.ok)).toEqual([true]);
  });
});
