/**
 * `contact:redeliver` and `contact:deliveries` as an operator runs them, against a server's
 * running outbox and a real webhook receiver on loopback, on both engines: a delivery given up
 * is listed as failed, redelivered by id (same webhook-id, fresh timestamp) and since an instant,
 * and spam is refused until --not-spam.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startOutbox, type OutboxHandle } from '../../../../src/app/jobs/outbox.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { submissionDeliveries } from '../../../../src/features/contact/deliveries.server.ts';
import { COMPILE_CACHE_ENV } from '../../../helpers/compile-cache.ts';
import { ENGINES, openTestDb, testServices, validPayload, type TestDb } from '../../../helpers/contact-fixtures.ts';
import { WebhookReceiver } from '../../../helpers/loopback-peers.ts';

const execute = promisify(execFile);

/** Run a command; resolves with its exit code and output whatever the code. */
async function command(script: string, args: string[], databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execute(process.execPath, [`jobs/cli/${script}.ts`, ...args], { env: { PATH: process.env['PATH'] ?? '', ...COMPILE_CACHE_ENV, DATABASE_URL: databaseUrl } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe.each(ENGINES)('contact:redeliver and contact:deliveries on %s', (engine) => {
  let db: TestDb;
  let receiver: WebhookReceiver;
  let outbox: OutboxHandle | undefined;
  const secret = `whsec_${randomBytes(32).toString('base64')}`;

  beforeAll(async () => {
    db = await openTestDb(engine);
  });
  afterAll(() => db.dispose());
  beforeEach(async () => {
    await db.handle.kysely.deleteFrom('contact_submission').execute();
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await outbox?.stop();
    await receiver.stop();
  });

  /** The server's outbox: two attempts a second apart, then failed; polling every 50 ms. */
  const serve = () => {
    const services = testServices(db.handle, { CONTACT_WEBHOOK_URL: receiver.url, CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true', CONTACT_WEBHOOK_SECRET: secret, CONTACT_DELIVERY_ATTEMPTS: '2', CONTACT_DELIVERY_SCHEDULE: '100ms', CONTACT_OUTBOX_INTERVAL_MS: '50' });
    outbox = startOutbox({ services });
  };
  const state = async (id: number) => (await submissionDeliveries(db.handle, id)).map((d) => d.state);

  it('lists a delivery the running outbox gave up on, redelivers it by id with the same webhook-id, and shows every attempt', async () => {
    receiver.respond = (res, index) => res.writeHead(index < 2 ? 503 : 204).end();
    serve();
    const { id } = await storeSubmission(db.handle, validPayload, { deliver: true });
    await receiver.until(2);
    await vi.waitFor(async () => expect(await state(id)).toEqual(['failed']));

    const failed = await command('contact-deliveries', ['--state', 'failed'], db.url);
    expect(failed.code).toBe(0);
    expect(failed.stdout).toMatch(new RegExp(`^submission +${id}  webhook failed +2 attempts  failed \\S+  last error: HTTP 503 Service Unavailable\\n$`));
    expect(failed.stderr).toMatch(/^1 delivery listed; in all 0 pending, 1 failed, 0 delivered, in /);

    // The signature covers webhook-timestamp, in whole seconds: a redelivery within the second of
    // the first attempt would carry its timestamp and signature again (the commands start in well
    // under a second once their compiled code is cached), so the redelivery waits for the next one.
    const firstSecond = Number(receiver.received[0]!.headers['webhook-timestamp']);
    await vi.waitFor(() => expect(Math.floor(Date.now() / 1000)).toBeGreaterThan(firstSecond), { timeout: 5_000, interval: 50 });
    const redelivered = await command('contact-redeliver', ['--id', String(id)], db.url);
    expect(redelivered).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^made 1 delivery of submission ${id} due now`)) });
    await receiver.until(3);
    await vi.waitFor(async () => expect(await state(id)).toEqual(['delivered']));
    const [first, , last] = receiver.received.map((r) => r.headers);
    expect(last!['webhook-id']).toBe(first!['webhook-id']);
    expect(Number(last!['webhook-timestamp'])).toBeGreaterThan(Number(first!['webhook-timestamp']));
    expect(last!['webhook-signature']).not.toBe(first!['webhook-signature']);

    const log = await command('contact-deliveries', ['--id', String(id)], db.url);
    expect(log.code).toBe(0);
    const lines = log.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^submission ${id}, \\S+Z, high priority$`));
    expect(lines[1]).toMatch(/^  webhook delivered +1 attempt +delivered \S+Z$/);
    expect(lines.slice(2).map((line) => line.trim().split(/\s+/).slice(1, 3))).toEqual([
      ['failed', '503'],
      ['failed', '503'],
      ['delivered', '204'],
    ]);
  });

  it('redelivers since an instant what was not delivered', async () => {
    receiver.respond = (res) => res.writeHead(500).end();
    serve();
    const { id } = await storeSubmission(db.handle, validPayload, { deliver: true });
    await vi.waitFor(async () => expect(await state(id)).toEqual(['failed']));
    receiver.respond = (res) => res.writeHead(200).end();
    const since = new Date(Date.now() - 60_000).toISOString();
    expect(await command('contact-redeliver', ['--since', since], db.url)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^made 1 delivery of submissions since /) });
    await vi.waitFor(async () => expect(await state(id)).toEqual(['delivered']));
    expect(await command('contact-redeliver', ['--since', since], db.url)).toMatchObject({ code: 0, stdout: expect.stringMatching(/^made 0 deliveries /) });
  });

  it('refuses to redeliver spam until --not-spam, then delivers it', async () => {
    serve();
    const { id } = await storeSubmission(db.handle, validPayload, { deliver: true, spamReason: 'honeypot' });
    expect(await command('contact-redeliver', ['--id', String(id)], db.url)).toMatchObject({ code: 65, stderr: expect.stringContaining('is spam and is never delivered; add --not-spam') });
    expect(await command('contact-redeliver', ['--id', String(id), '--not-spam'], db.url)).toMatchObject({ code: 0 });
    await receiver.until(1);
    await vi.waitFor(async () => expect(await state(id)).toEqual(['delivered']));
    expect(receiver.ids()).toEqual([id]);
  });

  it('says so for a submission that does not exist, and refuses bad arguments with usage', async () => {
    expect(await command('contact-redeliver', ['--id', '999999'], db.url)).toMatchObject({ code: 66, stderr: expect.stringContaining('no submission 999999') });
    expect(await command('contact-deliveries', ['--id', '999999'], db.url)).toMatchObject({ code: 66 });
    expect(await command('contact-redeliver', [], db.url)).toMatchObject({ code: 64, stderr: expect.stringContaining('give either --id N or --since ISO-8601') });
    expect(await command('contact-redeliver', ['--since', 'yesterday'], db.url)).toMatchObject({ code: 64 });
    expect(await command('contact-deliveries', ['--state', 'lost'], db.url)).toMatchObject({ code: 64, stderr: expect.stringContaining('--state must be one of pending, delivered, failed') });
    expect(await command('contact-deliveries', ['--id', '0'], db.url)).toMatchObject({ code: 64 });
  });
});
