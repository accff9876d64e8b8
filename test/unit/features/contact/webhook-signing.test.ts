import { createHmac, randomBytes } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { createOpenApiDocument } from '../../../../src/api-docs/document.ts';
import { loadConfig } from '../../../../src/app/config.ts';
import { ContactDelivery } from '../../../../src/features/contact/contact-delivery.ts';
import { webhookId, webhookSigner, WebhookSecret } from '../../../../src/features/contact/webhook-signing.ts';
import { configProblems } from '../../../helpers/config.ts';

const secretOf = (bytes: number) => `whsec_${randomBytes(bytes).toString('base64')}`;
const SECRET = secretOf(32);

describe('CONTACT_WEBHOOK_SECRET', () => {
  it.each([24, 32, 64])('accepts whsec_ and the base64 of %i random bytes', (bytes) => {
    const secret = secretOf(bytes);
    expect(loadConfig({ CONTACT_WEBHOOK_SECRET: secret }).CONTACT_WEBHOOK_SECRET).toBe(secret);
    expect(() => new Webhook(secret)).not.toThrow();
  });

  it('is optional', () => {
    expect(loadConfig({}).CONTACT_WEBHOOK_SECRET).toBeUndefined();
  });

  it.each([
    ['no whsec_ prefix', 'hunter2-hunter2-hunter2-hunter2', 'must be whsec_ followed by standard base64 (Standard Webhooks), e.g. "whsec_$(openssl rand -base64 32)"'],
    ['nothing after the prefix', 'whsec_', 'must be whsec_ followed by standard base64 (Standard Webhooks), e.g. "whsec_$(openssl rand -base64 32)"'],
    ['base64url instead of base64', `whsec_${'-_'.repeat(16)}`, 'must be whsec_ followed by standard base64 (Standard Webhooks), e.g. "whsec_$(openssl rand -base64 32)"'],
    ['broken padding', `whsec_${Buffer.alloc(32, 7).toString('base64').slice(0, -1)}`, 'must be whsec_ followed by standard base64 (Standard Webhooks), e.g. "whsec_$(openssl rand -base64 32)"'],
    ['too few bytes', `whsec_${Buffer.from('hunter2').toString('base64')}`, 'must decode to 24-64 bytes (Standard Webhooks; got 7), e.g. "whsec_$(openssl rand -base64 32)"'],
    ['too many bytes', `whsec_${Buffer.alloc(65, 7).toString('base64')}`, 'must decode to 24-64 bytes (Standard Webhooks; got 65), e.g. "whsec_$(openssl rand -base64 32)"'],
  ])('refuses %s, naming the variable and never the value', (_name, value, message) => {
    const problems = configProblems({ CONTACT_WEBHOOK_SECRET: value });
    expect(problems).toEqual([`CONTACT_WEBHOOK_SECRET: ${message}`]);
    expect(problems.join()).not.toContain('hunter2');
    expect(WebhookSecret.safeParse(value).success).toBe(false);
  });
});

describe('CONTACT_RETENTION_DAYS', () => {
  it('is optional and a positive whole number of days', () => {
    expect(loadConfig({}).CONTACT_RETENTION_DAYS).toBeUndefined();
    expect(loadConfig({ CONTACT_RETENTION_DAYS: '30' }).CONTACT_RETENTION_DAYS).toBe(30);
    expect(configProblems({ CONTACT_RETENTION_DAYS: '0' })).toEqual(['CONTACT_RETENTION_DAYS: must be greater than 0 (got "0")']);
    expect(configProblems({ CONTACT_RETENTION_DAYS: '7.5' })).toEqual(['CONTACT_RETENTION_DAYS: must be a whole number (got "7.5")']);
    expect(configProblems({ CONTACT_RETENTION_DAYS: '36501' })).toEqual(['CONTACT_RETENTION_DAYS: must be at most 36500 (100 years) (got "36501")']);
  });
});

describe('webhookSigner', () => {
  const body = JSON.stringify({ type: 'contact_submission', id: 7, name: 'Ada' });
  const nowMs = Date.now();

  it('writes the three Standard Webhooks headers that the reference library verifies', () => {
    const headers = webhookSigner(SECRET)(webhookId(7), nowMs, body);
    expect(headers['webhook-id']).toBe('contact-submission-7');
    expect(headers['webhook-timestamp']).toBe(String(Math.floor(nowMs / 1000)));
    expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(SECRET).verify(body, { ...headers })).toEqual(JSON.parse(body));
  });

  it('signs "<id>.<timestamp>.<body>" with HMAC-SHA256 of the decoded secret, as the spec says', () => {
    const headers = webhookSigner(SECRET)('contact-submission-7', nowMs, body);
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`contact-submission-7.${headers['webhook-timestamp']}.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('fails verification for another secret, another body, another id or a stale timestamp', () => {
    const sign = webhookSigner(SECRET);
    const headers = sign('contact-submission-7', nowMs, body);
    expect(() => new Webhook(secretOf(32)).verify(body, { ...headers })).toThrow(WebhookVerificationError);
    expect(() => new Webhook(SECRET).verify(body.replace('Ada', 'Eve'), { ...headers })).toThrow('No matching signature found');
    expect(() => new Webhook(SECRET).verify(body, { ...headers, 'webhook-id': 'contact-submission-8' })).toThrow('No matching signature found');
    expect(() => new Webhook(SECRET).verify(body, { ...sign('contact-submission-7', nowMs - 6 * 60_000, body) })).toThrow('Message timestamp too old');
  });
});

describe('the OpenAPI document', () => {
  it('describes the delivery as an OpenAPI 3.1 webhook: body, idempotency and the three signature headers', () => {
    const document = JSON.parse(JSON.stringify(createOpenApiDocument({ siteName: 'Test', siteUrl: 'https://site.example' }))) as {
      webhooks: Record<string, { post: { parameters: Array<{ name: string; in: string; required?: boolean }>; requestBody: { content: Record<string, { example: unknown }> } } }>;
    };
    const { post } = document.webhooks['contactSubmission']!;
    expect(post.parameters.map((p) => [p.in, p.name, p.required ?? false])).toEqual([
      ['header', 'Idempotency-Key', true],
      ['header', 'webhook-id', false],
      ['header', 'webhook-timestamp', false],
      ['header', 'webhook-signature', false],
    ]);
    expect(ContactDelivery.safeParse(post.requestBody.content['application/json']!.example).success).toBe(true);
  });
});
