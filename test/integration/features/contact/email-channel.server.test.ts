/**
 * The e-mail channel against a real SMTP server on loopback (smtp-server), messages read back with
 * mailparser: the message and its headers, header and recipient injection attempts, a server that
 * refuses, vanishes mid-session or hangs, then recovers; and through the outbox on both engines,
 * beside the webhook.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startOutbox } from '../../../../src/app/jobs/outbox.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { submissionDeliveries } from '../../../../src/features/contact/deliveries.server.ts';
import type { OutgoingSubmission } from '../../../../src/features/contact/delivery-channel.ts';
import { emailChannel } from '../../../../src/features/contact/email-channel.server.ts';
import { deliverPending } from '../../../../src/features/contact/outbox.server.ts';
import { webhookChannel } from '../../../../src/features/contact/webhook-channel.server.ts';
import { ENGINES, testServices, useTestDb, validPayload } from '../../../helpers/contact-fixtures.ts';
import { SmtpSink, WebhookReceiver } from '../../../helpers/loopback-peers.ts';

const TEAM = ['team@example.com', 'sales@example.com'];
const submission: OutgoingSubmission = { id: 42, created_at: Date.UTC(2026, 0, 5, 9, 30), name: 'Ada Lovelace', job_title: 'Analyst', work_email: 'ada@example.com', priority: 'high', message: 'Hello.\nSecond line.' };
const context = { now: Date.now, timeoutMs: 5_000 };

describe('the e-mail channel with a real SMTP server', () => {
  let smtp: SmtpSink;
  beforeEach(async () => {
    smtp = await new SmtpSink().start();
  });
  afterEach(() => smtp.stop());

  const channel = (overrides: Partial<Parameters<typeof emailChannel>[0]> = {}) => emailChannel({ smtpUrl: smtp.url(), to: TEAM, from: 'contact-form@example.com', ...overrides });

  it('mails the submission to the team, Reply-To the sender, and says "high priority" in the subject', async () => {
    expect(await channel().send(submission, context)).toEqual({ ok: true, responseCode: 250 });
    const [mail] = smtp.mails;
    expect(mail!.envelope).toEqual({ from: 'contact-form@example.com', to: TEAM });
    const parsed = mail!.parsed;
    expect(parsed.subject).toBe('[High priority] Contact form: Ada Lovelace');
    expect(parsed.from?.value).toEqual([{ name: 'Contact form', address: 'contact-form@example.com' }]);
    expect(parsed.to && !Array.isArray(parsed.to) ? parsed.to.value.map((a) => a.address) : undefined).toEqual(TEAM);
    expect(parsed.replyTo?.value).toEqual([{ name: '', address: 'ada@example.com' }]);
    expect(parsed.headerLines.find((h) => h.key === 'x-priority')?.line).toBe('X-Priority: 1 (Highest)');
    expect(parsed.headers.get('x-contact-submission-id')).toBe('42');
    expect(parsed.text).toContain('Name:        Ada Lovelace');
    expect(parsed.text).toContain('Work email:  ada@example.com');
    expect(parsed.text).toContain('Submitted:   2026-01-05T09:30:00.000Z');
    expect(parsed.text).toContain('Hello.\nSecond line.');
  });

  it('says nothing of priority in the subject of a standard submission', async () => {
    await channel().send({ ...submission, priority: 'standard', name: 'Grace Hopper' }, context);
    expect(smtp.mails[0]!.parsed.subject).toBe('Contact form: Grace Hopper');
    expect(smtp.mails[0]!.parsed.headerLines.find((h) => h.key === 'x-priority')).toBeUndefined();
  });

  it.each([
    ['CR LF and a Bcc header', 'Ada\r\nBcc: evil@attacker.example\r\nX-Injected: yes'],
    ['a bare LF', 'Ada\nCc: evil@attacker.example'],
    ['an encoded word that decodes to a header', `=?UTF-8?B?${Buffer.from('\r\nBcc: evil@attacker.example').toString('base64')}?= Ada`],
    ['a Unicode line separator and non-ASCII text', 'Zoë\u2028Bcc: evil@attacker.example'],
    ['commas and angle brackets', 'Ada, <evil@attacker.example>, "Bcc: x"'],
  ])('adds no header or recipient through a name holding %s', async (_what, name) => {
    const sent = await channel().send({ ...submission, name, message: 'Hi\r\n.\r\nMAIL FROM:<evil@attacker.example>\r\nRCPT TO:<evil@attacker.example>\r\nDATA\r\n' }, context);
    expect(sent.ok).toBe(true);
    expect(smtp.mails).toHaveLength(1);
    const [mail] = smtp.mails;
    expect(mail!.envelope.to).toEqual(TEAM);
    const { parsed } = mail!;
    expect(parsed.bcc).toBeUndefined();
    expect(parsed.cc).toBeUndefined();
    expect(parsed.headers.has('x-injected')).toBe(false);
    // The name appears in the Subject only, and no other header mentions the attacker.
    expect(parsed.headerLines.filter((h) => h.key !== 'subject' && h.line.includes('attacker'))).toEqual([]);
    // The subject is one line: what was typed, control characters as spaces, never decoded twice.
    expect(parsed.subject).toBe(`[High priority] Contact form: ${name.replace(/[\r\n\u2028]+/g, ' ').replace(/ {2,}/g, ' ')}`);
    // The body's smuggled SMTP commands stay text in the one message.
    expect(parsed.text).toContain('MAIL FROM:<evil@attacker.example>');
  });

  it('leaves Reply-To out rather than let a work_email name a second mailbox', async () => {
    await channel().send({ ...submission, work_email: 'ada@example.com, evil@attacker.example' }, context);
    const { parsed, envelope } = smtp.mails[0]!;
    expect(parsed.replyTo).toBeUndefined();
    expect(envelope.to).toEqual(TEAM);
    expect(parsed.text).toContain('This e-mail has no Reply-To');
  });

  it('reports a refusal (5xx) with its code, and delivers once the server takes mail again', async () => {
    smtp.onData = (index) => (index === 0 ? { refuse: 550, message: 'Mailbox unavailable' } : 'accept');
    const refused = await channel().send(submission, context);
    expect(refused).toEqual({ ok: false, responseCode: 550, error: expect.stringMatching(/^SMTP 550: 550 Mailbox unavailable/) });
    expect(await channel().send(submission, context)).toEqual({ ok: true, responseCode: 250 });
    expect(smtp.mails).toHaveLength(1);
  });

  it('reports a server that vanishes mid-session, and delivers on the next connection', async () => {
    smtp.onData = (index) => (index === 0 ? 'disconnect' : 'accept');
    const lost = await channel().send(submission, context);
    expect(lost.ok).toBe(false);
    expect(await channel().send(submission, context)).toEqual({ ok: true, responseCode: 250 });
  });

  it('ends an attempt the server never answers at the timeout', async () => {
    smtp.onData = () => 'hang';
    expect(await channel().send(submission, { now: Date.now, timeoutMs: 300 })).toEqual({ ok: false, error: expect.stringMatching(/timeout|no answer within 300 ms/i) });
  });

  it('logs in with the URL credentials and never repeats the password in an error', async () => {
    const guarded = await new SmtpSink({ auth: { user: 'mailer', pass: 'p@ss w0rd/secret' } }).start();
    try {
      const good = emailChannel({ smtpUrl: guarded.url(`mailer:${encodeURIComponent('p@ss w0rd/secret')}@`), to: TEAM, from: TEAM[0]! });
      expect(await good.send(submission, context)).toMatchObject({ ok: true });
      const bad = emailChannel({ smtpUrl: guarded.url('mailer:wrong-secret-value@'), to: TEAM, from: TEAM[0]! });
      const refused = await bad.send(submission, context);
      expect(refused.ok).toBe(false);
      expect(JSON.stringify(refused)).not.toContain('wrong-secret-value');
    } finally {
      await guarded.stop();
    }
  });
});

describe.each(ENGINES)('e-mail through the outbox on %s', (engine) => {
  const suite = useTestDb(engine);
  let smtp: SmtpSink;
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    await suite.db.handle.kysely.deleteFrom('contact_submission').execute();
    smtp = await new SmtpSink().start();
    receiver = await new WebhookReceiver().start();
  });
  afterEach(async () => {
    await smtp.stop();
    await receiver.stop();
  });

  it('logs a refused mail, retries it on the schedule, and delivers it when the server recovers; the webhook goes its own way', async () => {
    const { id } = await storeSubmission(suite.db.handle, validPayload, { deliver: true, now: 1_000 });
    smtp.onData = (index) => (index < 2 ? { refuse: 451, message: 'Try again later' } : 'accept');
    let clock = 1_000;
    const deps = { db: suite.db.handle, now: () => clock, random: () => 0, channels: [webhookChannel({ url: receiver.url, allowPrivate: true }), emailChannel({ smtpUrl: smtp.url(), to: TEAM, from: TEAM[0]! })] };
    const schedule = { attempts: 5, delaysMs: [100] };
    expect(await deliverPending(deps, { schedule })).toEqual({ delivered: 1, failed: 1, gaveUp: 0 });
    clock += 100;
    expect(await deliverPending(deps, { schedule })).toEqual({ delivered: 0, failed: 1, gaveUp: 0 });
    clock += 100;
    expect(await deliverPending(deps, { schedule })).toEqual({ delivered: 1, failed: 0, gaveUp: 0 });

    const log = await submissionDeliveries(suite.db.handle, id);
    expect(log.map((d) => [d.channel, d.state, d.attemptLog.map((a) => a.response_code)])).toEqual([
      ['email', 'delivered', [451, 451, 250]],
      ['webhook', 'delivered', [200]],
    ]);
    expect(log[0]!.attemptLog[0]!.error).toMatch(/^SMTP 451: 451 Try again later/);
    expect(smtp.mails).toHaveLength(1);
    expect(receiver.ids()).toEqual([id]);
  });

  it('gives up on a mail server that keeps refusing: the e-mail delivery is failed, the webhook delivered', async () => {
    const { id } = await storeSubmission(suite.db.handle, validPayload, { deliver: true, now: 1_000 });
    smtp.onData = () => ({ refuse: 554, message: 'Transaction failed' });
    const deps = { db: suite.db.handle, now: () => 1_000, channels: [webhookChannel({ url: receiver.url, allowPrivate: true }), emailChannel({ smtpUrl: smtp.url(), to: TEAM, from: TEAM[0]! })] };
    const schedule = { attempts: 2, delaysMs: [0] };
    expect(await deliverPending(deps, { schedule })).toEqual({ delivered: 1, failed: 1, gaveUp: 0 });
    expect(await deliverPending(deps, { schedule })).toEqual({ delivered: 0, failed: 0, gaveUp: 1 });
    expect(await deliverPending(deps, { schedule })).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect((await submissionDeliveries(suite.db.handle, id)).map((d) => [d.channel, d.state, d.attempts])).toEqual([
      ['email', 'failed', 2],
      ['webhook', 'delivered', 1],
    ]);
  });

  it('delivers the webhook while the mail server hangs', async () => {
    await storeSubmission(suite.db.handle, validPayload, { deliver: true });
    smtp.onData = () => 'hang';
    const run = deliverPending({ db: suite.db.handle, channels: [emailChannel({ smtpUrl: smtp.url(), to: TEAM, from: TEAM[0]! }), webhookChannel({ url: receiver.url, allowPrivate: true })] }, { requestTimeoutMs: 2_000 });
    await receiver.until(1);
    await smtp.until(1);
    expect(await run).toEqual({ delivered: 1, failed: 1, gaveUp: 0 });
  });

  it('mails each stored submission when the running server is configured with CONTACT_NOTIFY_*', async () => {
    const services = testServices(suite.db.handle, { CONTACT_NOTIFY_SMTP_URL: smtp.url(), CONTACT_NOTIFY_TO: TEAM.join(', ') });
    const outbox = startOutbox({ services, intervalMs: 20 });
    try {
      const { id } = await storeSubmission(suite.db.handle, validPayload, { deliver: true });
      await smtp.until(1);
      await vi.waitFor(async () => expect((await submissionDeliveries(suite.db.handle, id)).map((d) => d.state)).toEqual(['delivered']));
      expect(smtp.mails[0]!.envelope).toEqual({ from: TEAM[0], to: TEAM });
    } finally {
      await outbox.stop();
    }
  });
});
