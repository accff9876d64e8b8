/**
 * The receiver the operators' guide shows (docs/operators.md, "Signed webhooks"), run as the file
 * it is copied from (examples/webhook-receiver.ts) against the real outbox, on both engines.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { storeSubmission } from '../../../src/features/contact/contact.server.ts';
import { redeliverSubmission } from '../../../src/features/contact/deliveries.server.ts';
import { deliverPending } from '../../../src/features/contact/outbox.server.ts';
import { belowHeaderComment, guideBlock } from '../../helpers/guide-copy.ts';
import { ENGINES, openTestDb, validPayload, type TestDb } from '../../helpers/contact-fixtures.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const EXAMPLE = join(ROOT, 'examples', 'webhook-receiver.ts');
const secretOf = () => `whsec_${randomBytes(32).toString('base64')}`;

describe("the operators' guide's webhook receiver", () => {
  it('is examples/webhook-receiver.ts as it is, below its header comment', () => {
    expect(guideBlock('docs/operators.md', '### Signed webhooks', 'ts')).toBe(belowHeaderComment('examples/webhook-receiver.ts'));
  });
});

/** The example as a process on a free port; its stdout lines are the submissions it accepted. */
async function startReceiver(secret: string): Promise<{ url: string; accepted: () => unknown[]; child: ChildProcess }> {
  const child = spawn(process.execPath, [EXAMPLE], { cwd: ROOT, env: { PATH: process.env['PATH'] ?? '', CONTACT_WEBHOOK_SECRET: secret, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const port = await vi.waitFor(
    () => {
      const match = /listening on (\{.*\})/.exec(stderr);
      if (!match) throw new Error(`not listening yet: ${stderr}`);
      return (JSON.parse(match[1]!) as { port: number }).port;
    },
    { timeout: 60_000, interval: 50 },
  );
  return { url: `http://127.0.0.1:${port}/contact`, child, accepted: () => stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line) as unknown) };
}

describe.each(ENGINES)('examples/webhook-receiver.ts and the outbox on %s', (engine) => {
  let db: TestDb;
  let secret: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    db = await openTestDb(engine);
    secret = secretOf();
    receiver = await startReceiver(secret);
  });
  afterAll(async () => {
    receiver?.child.kill();
    if (receiver && receiver.child.exitCode === null) await once(receiver.child, 'exit');
    await db?.dispose();
  });
  beforeEach(async () => {
    await db.handle.kysely.deleteFrom('contact_submission').execute();
  });

  const queue = async () => (await storeSubmission(db.handle, validPayload, { deliver: true, now: Date.now() })).id;
  const status = async (id: number) => db.handle.kysely.selectFrom('contact_delivery').select(['state', 'last_error']).where('submission_id', '=', id).executeTakeFirstOrThrow();

  it('accepts a signed delivery once, and answers a redelivery of the same webhook-id without handling it again', async () => {
    const before = receiver.accepted().length;
    const id = await queue();
    const deps = { db: db.handle, webhookUrl: receiver.url, allowPrivate: true, signingSecret: secret };
    expect(await deliverPending(deps)).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    // A crash between the receiver's 2xx and our bookkeeping: the row is sent again, signed afresh.
    expect(await redeliverSubmission(db.handle, id)).toMatchObject({ deliveries: 1 });
    expect(await deliverPending(deps)).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });
    expect(receiver.accepted().slice(before)).toEqual([expect.objectContaining({ type: 'contact_submission', id, work_email: validPayload.work_email })]);
  });

  it('refuses a delivery signed with another secret (401, kept pending) and one without a signature', async () => {
    const before = receiver.accepted().length;
    const id = await queue();
    expect(await deliverPending({ db: db.handle, webhookUrl: receiver.url, allowPrivate: true, signingSecret: secretOf() })).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    expect(await status(id)).toEqual({ state: 'pending', last_error: 'HTTP 401 Unauthorized' });
    await db.handle.kysely.updateTable('contact_delivery').set({ next_attempt_at: 0 }).where('submission_id', '=', id).execute();
    expect(await deliverPending({ db: db.handle, webhookUrl: receiver.url, allowPrivate: true })).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    expect(receiver.accepted().length).toBe(before);
  });
});
