/**
 * The delivery log and the operators' actions (deliveries.server.ts) with the real outbox and a
 * real webhook receiver on loopback, on both engines: attempts logged through to `failed`,
 * redelivery by id and since an instant (same webhook-id, fresh timestamp), spam paused and resumed.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { deliveryCounts, listDeliveries, markNotSpam, markSpam, redeliverSince, redeliverSubmission, submissionDeliveries } from '../../../../src/features/contact/deliveries.server.ts';
import { deliverPending, type OutboxDeps } from '../../../../src/features/contact/outbox.server.ts';
import type { Labels, Meter } from '../../../../src/lib/meter.ts';
import { ENGINES, useTestDb, validPayload } from '../../../helpers/contact-fixtures.ts';
import { WebhookReceiver } from '../../../helpers/loopback-peers.ts';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const SCHEDULE = { attempts: 3, delaysMs: [1_000, 5_000] };

/** Records what the outbox counts (an implementation of the Meter interface, not a mock of I/O). */
function recordingMeter(): Meter & { counted: Array<[string, Labels | undefined]> } {
  const counted: Array<[string, Labels | undefined]> = [];
  return { counted, count: (name, labels) => void counted.push([name, labels]), observe() {}, set() {} };
}

describe.each(ENGINES)('contact delivery log on %s', (engine) => {
  const suite = useTestDb(engine);
  let receiver: WebhookReceiver;
  let clock: number;
  let meter: ReturnType<typeof recordingMeter>;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  beforeEach(async () => {
    await suite.db.handle.kysely.deleteFrom('contact_submission').execute();
    receiver = await new WebhookReceiver().start();
    clock = T0;
    meter = recordingMeter();
  });
  afterEach(() => receiver.stop());

  const deps = (): OutboxDeps => ({ db: suite.db.handle, webhookUrl: receiver.url, allowPrivate: true, signingSecret: secret, now: () => clock, random: () => 0, meter });
  const run = () => deliverPending(deps(), { schedule: SCHEDULE });
  const store = async (spamReason?: string) => (await storeSubmission(suite.db.handle, validPayload, { deliver: true, now: clock, spamReason })).id;
  const failWith = (status: number) => (receiver.respond = (res) => res.writeHead(status).end());

  it('logs every attempt, retries on the schedule, then marks the delivery failed and counts it', async () => {
    const id = await store();
    failWith(503);
    expect(await run()).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    clock += 999;
    expect(await run()).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    clock += 1;
    expect(await run()).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    clock += 5_000;
    expect(await run()).toEqual({ delivered: 0, failed: 0, gaveUp: 1 });
    clock += 86_400_000;
    expect(await run()).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(receiver.received).toHaveLength(3);

    const [delivery] = await submissionDeliveries(suite.db.handle, id);
    expect(delivery).toMatchObject({ channel: 'webhook', state: 'failed', attempts: 3, next_attempt_at: null, failed_at: T0 + 6_000, last_error: 'HTTP 503 Service Unavailable' });
    expect(delivery!.attemptLog.map((a) => [a.attempted_at, a.outcome, a.response_code, a.error])).toEqual([
      [T0, 'failed', 503, 'HTTP 503 Service Unavailable'],
      [T0 + 1_000, 'failed', 503, 'HTTP 503 Service Unavailable'],
      [T0 + 6_000, 'failed', 503, 'HTTP 503 Service Unavailable'],
    ]);
    for (const attempt of delivery!.attemptLog) expect(attempt.duration_ms).toBeGreaterThanOrEqual(0);
    expect(meter.counted).toEqual([
      ['contact_delivery_attempts_total', { channel: 'webhook', outcome: 'failed' }],
      ['contact_delivery_attempts_total', { channel: 'webhook', outcome: 'failed' }],
      ['contact_delivery_attempts_total', { channel: 'webhook', outcome: 'failed' }],
      ['contact_deliveries_failed_total', { channel: 'webhook' }],
    ]);
    expect((await listDeliveries(suite.db.handle, { state: 'failed' })).map((d) => [d.submission_id, d.submission.name])).toEqual([[id, validPayload.name]]);
    expect(await listDeliveries(suite.db.handle, { state: 'pending' })).toEqual([]);
    expect(await deliveryCounts(suite.db.handle)).toEqual({ pending: 0, delivered: 0, failed: 1 });
  });

  it('redelivers a failed submission at once with the same webhook-id and a fresh timestamp, keeping the earlier attempts', async () => {
    const id = await store();
    failWith(500);
    await run();
    clock += 1_000;
    await run();
    clock += 5_000;
    await run();
    expect((await submissionDeliveries(suite.db.handle, id))[0]!.state).toBe('failed');

    receiver.respond = (res) => res.writeHead(204).end();
    clock += 3_600_000;
    expect(await redeliverSubmission(suite.db.handle, id, { now: clock })).toEqual({ found: true, deliveries: 1, planned: 1, spam: 0 });
    expect(await listDeliveries(suite.db.handle, { state: 'pending' })).toHaveLength(1);
    expect(await run()).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });

    const first = receiver.received[0]!.headers;
    const last = receiver.received.at(-1)!.headers;
    expect(last['webhook-id']).toBe(`contact-submission-${id}`);
    expect(last['webhook-id']).toBe(first['webhook-id']);
    expect(Number(last['webhook-timestamp'])).toBe(Math.floor(clock / 1000));
    expect(Number(last['webhook-timestamp'])).toBeGreaterThan(Number(first['webhook-timestamp']));
    const [delivery] = await submissionDeliveries(suite.db.handle, id);
    expect(delivery).toMatchObject({ state: 'delivered', attempts: 1, delivered_at: clock, failed_at: null, last_error: null });
    expect(delivery!.attemptLog.map((a) => a.outcome)).toEqual(['failed', 'failed', 'failed', 'delivered']);
    expect(await redeliverSubmission(suite.db.handle, 999_999, { now: clock })).toEqual({ found: false, deliveries: 0, planned: 0, spam: 0 });
  });

  it('redelivers since an instant only what was not delivered, of submissions made since then', async () => {
    const old = await store();
    failWith(500);
    await run();
    clock += 60_000;
    const recent = await store();
    const delivered = await store();
    receiver.respond = (res, index) => res.writeHead(receiver.ids()[index] === delivered ? 200 : 500).end();
    await run();
    expect((await submissionDeliveries(suite.db.handle, delivered))[0]!.state).toBe('delivered');

    const result = await redeliverSince(suite.db.handle, clock, { now: clock + 1 });
    expect(result).toEqual({ deliveries: 1, planned: 0, spam: 0 });
    const pending = await listDeliveries(suite.db.handle, { state: 'pending' });
    expect(pending.map((d) => [d.submission_id, d.attempts, d.next_attempt_at])).toEqual([
      [old, 2, T0 + 60_000 + 5_000],
      [recent, 0, clock + 1],
    ]);
  });

  it('keeps spam, never sends it, and delivers it once it is marked not spam', async () => {
    const id = await store('honeypot');
    expect(await run()).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(await submissionDeliveries(suite.db.handle, id)).toEqual([]);
    expect(await redeliverSubmission(suite.db.handle, id, { now: clock })).toMatchObject({ found: true, deliveries: 0, spam: 1 });
    expect(await run()).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(receiver.received).toEqual([]);

    expect(await markNotSpam(suite.db.handle, id, { now: clock })).toBe(true);
    expect(await run()).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    expect(receiver.ids()).toEqual([id]);
    expect(await markNotSpam(suite.db.handle, 999_999)).toBe(false);
  });

  it('pauses the pending deliveries of a submission marked spam, and resumes them when it is not', async () => {
    const id = await store();
    failWith(503);
    await run();
    expect(await markSpam(suite.db.handle, id, 'looks like an advert')).toBe(true);
    expect(await suite.db.handle.kysely.selectFrom('contact_submission').select('spam_reason').where('id', '=', id).executeTakeFirstOrThrow()).toEqual({ spam_reason: 'looks like an advert' });
    clock += 86_400_000;
    receiver.respond = (res) => res.writeHead(204).end();
    expect(await run()).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(await redeliverSince(suite.db.handle, T0, { now: clock })).toEqual({ deliveries: 0, planned: 0, spam: 1 });

    expect(await markNotSpam(suite.db.handle, id, { now: clock })).toBe(true);
    expect(await run()).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    expect(receiver.ids()).toEqual([id, id]);
    expect(await markSpam(suite.db.handle, 999_999)).toBe(false);
  });

  it('deletes the log with its submission', async () => {
    const id = await store();
    await run();
    await suite.db.handle.kysely.deleteFrom('contact_submission').where('id', '=', id).execute();
    expect(await suite.db.handle.kysely.selectFrom('contact_delivery').selectAll().execute()).toEqual([]);
    expect(await suite.db.handle.kysely.selectFrom('contact_delivery_attempt').selectAll().execute()).toEqual([]);
  });
});
