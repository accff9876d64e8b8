/**
 * The contact outbox sends personal data only where it was meant to go: a CONTACT_WEBHOOK_URL
 * whose host is, or resolves to, a loopback or private address is refused (the reason stored
 * with the submission and logged), unless the operator opted in with
 * CONTACT_WEBHOOK_ALLOW_PRIVATE. Real local receivers; an injected resolver plays DNS.
 */
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startOutbox } from '../../../../src/app/jobs/outbox.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { deliverPending } from '../../../../src/features/contact/outbox.server.ts';
import { countingServer, tableLookup, type CountingServer } from '../../../helpers/outbound.ts';
import { openTestDb, testServices, validPayload, type TestDb } from '../../../helpers/contact-fixtures.ts';

const T0 = Date.UTC(2025, 5, 1, 12, 0, 0);
const HINT = 'set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose';

let db: TestDb;
let receiver: CountingServer;
beforeAll(async () => {
  db = await openTestDb('sqlite');
});
afterAll(async () => {
  await db?.dispose();
});
beforeEach(async () => {
  await db.handle.kysely.deleteFrom('contact_submission').execute();
  receiver = await countingServer('127.0.0.1', (_req, res) => res.writeHead(204).end());
});
afterEach(async () => {
  await receiver.close();
});

const queue = () => storeSubmission(db.handle, validPayload, { deliver: true, now: T0 });
const lastError = async (id: number) => (await db.handle.kysely.selectFrom('contact_delivery').select(['last_error', 'state']).where('submission_id', '=', id).executeTakeFirstOrThrow());

describe('the contact webhook and internal addresses', () => {
  it('refuses a webhook on a loopback IP literal, stores and logs why, and sends nothing', async () => {
    const { id } = await queue();
    const lines: Array<{ msg: string; error?: string }> = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    expect(await deliverPending({ db: db.handle, webhookUrl: `${receiver.url}/hook`, now: () => T0 + 1, log })).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    expect(receiver.hits).toEqual([]);
    expect(await lastError(id)).toEqual({ state: 'pending', last_error: `refused: 127.0.0.1 is a loopback address, not a public one; ${HINT}` });
    expect(lines.map((l) => [l.msg, l.error])).toEqual([['contact delivery failed', `refused: 127.0.0.1 is a loopback address, not a public one; ${HINT}`]]);
  });

  it('refuses a webhook host that resolves to a private address', async () => {
    const { id } = await queue();
    const lookup = tableLookup({ 'hooks.partner.test': '127.0.0.1' });
    const result = await deliverPending({ db: db.handle, webhookUrl: `http://hooks.partner.test:${receiver.port}/hook`, now: () => T0 + 1, lookup });
    expect(result).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    expect(receiver.hits).toEqual([]);
    expect((await lastError(id)).last_error).toBe(`refused: hooks.partner.test resolves to 127.0.0.1, a loopback address, not a public one; ${HINT}`);
  });

  it('delivers to a local receiver when the operator opted in', async () => {
    await queue();
    expect(await deliverPending({ db: db.handle, webhookUrl: `${receiver.url}/hook`, now: () => T0 + 1, allowPrivate: true })).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    expect(receiver.hits).toEqual(['/hook']);
  });

  it('reads the opt-in from CONTACT_WEBHOOK_ALLOW_PRIVATE in the running outbox, and refuses without it', async () => {
    const { id } = await queue();
    // loadConfig refuses a literal loopback URL without the opt-in at start-up; the outbox's own
    // refusal (for a host name that resolves there) is what this part exercises.
    const opted = testServices(db.handle, { CONTACT_WEBHOOK_URL: `${receiver.url}/hook`, CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' });
    const refusing = startOutbox({ services: { ...opted, config: { ...opted.config, CONTACT_WEBHOOK_ALLOW_PRIVATE: false } }, intervalMs: 20 });
    try {
      await vi.waitFor(async () => expect((await lastError(id)).last_error).toMatch(/^refused: 127\.0\.0\.1 is a loopback address/));
    } finally {
      await refusing.stop();
    }
    expect(receiver.hits).toEqual([]);
    await db.handle.kysely.updateTable('contact_delivery').set({ next_attempt_at: 0 }).execute();
    const allowed = startOutbox({ services: testServices(db.handle, { CONTACT_WEBHOOK_URL: `${receiver.url}/hook`, CONTACT_WEBHOOK_ALLOW_PRIVATE: 'true' }), intervalMs: 20 });
    try {
      await vi.waitFor(async () => expect((await lastError(id)).state).toBe('delivered'));
    } finally {
      await allowed.stop();
    }
    expect(receiver.hits).toEqual(['/hook']);
  });
});
