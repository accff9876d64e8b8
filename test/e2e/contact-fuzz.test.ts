/**
 * The contact endpoint's robustness, through the real server process: whatever a client throws at
 * `POST /api/contact` (arbitrary JSON, form-like objects with wrong members, text, raw bytes,
 * bodies around the 32 KiB limit, assorted content types and Idempotency-Key headers), the answer
 * is one of 200, 400, 413 or 415, never a 5xx, every error body is a problem (RFC 9457: title,
 * status, code) in application/problem+json, and the server keeps answering afterwards.
 *
 * The handler-level twin (test/integration/features/contact/contact.endpoint.property.test.ts) covers the same ground with
 * more runs; this one adds the edge in front of it (body reading and limits, rate limiting,
 * headers) and the process staying up.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyValue, contactLike } from '../helpers/contact-arbitraries.ts';
import { PRIORITIES } from '../../src/features/contact/contact-payload.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

/** Raised so that a 429 cannot happen: it would hide the statuses under test. */
const HIGH_LIMITS = {
  RATE_LIMIT_CONTACT_HOUR: '100000',
  RATE_LIMIT_CONTACT_DAY: '100000',
  RATE_LIMIT_SITE_MINUTE: '100000',
};

const RUNS = 200;
const ALLOWED = [200, 400, 413, 415];

const validForm = fc.record({
  name: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== ''),
  work_email: fc.emailAddress().filter((e) => e.length <= 254),
  priority: fc.constantFrom(...PRIORITIES),
});

/** A body as bytes (so fetch adds no Content-Type of its own). */
const body: fc.Arbitrary<Uint8Array<ArrayBuffer>> = fc.oneof(
  { weight: 4, arbitrary: contactLike.map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: validForm.map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: anyValue.map((value) => JSON.stringify(value)) },
  { weight: 2, arbitrary: fc.string({ maxLength: 300 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  // Members a naive merge would turn into prototype pollution.
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"__proto__":{"polluted":true},"name":"Ada","work_email":"ada@example.com","priority":"high"}',
      '{"constructor":{"prototype":{"polluted":true}},"name":"Ada","work_email":"ada@example.com","priority":"standard"}',
    ),
  },
  // A valid form padded with spaces to either side of the 32 KiB limit.
  {
    weight: 1,
    arbitrary: fc
      .tuple(validForm, fc.integer({ min: 32 * 1024 - 200, max: 32 * 1024 + 200 }))
      .map(([value, size]) => JSON.stringify(value).padEnd(size, ' ')),
  },
).map((value) => (typeof value === 'string' ? new TextEncoder().encode(value) : new Uint8Array(value)));

/** Content-Type header, or none at all. */
const contentType = fc.option(
  fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'application/json;charset="UTF-8"',
    'APPLICATION/JSON',
    'application/problem+json',
    'application/vnd.api+json',
    'application/json; charset=latin1',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
    'json',
    '',
  ),
  { nil: undefined },
);

/**
 * Idempotency-Key: none, a fresh one (never reused here: a reused key with other content is a
 * 422, outside what this property is about), or one too long to accept.
 */
const idempotencyKey = fc.constantFrom('none', 'fresh', 'too-long').map((kind) => {
  if (kind === 'fresh') return randomUUID();
  if (kind === 'too-long') return 'k'.repeat(300);
  return undefined;
});

const bytes = (text: string) => new TextEncoder().encode(text);
const VALID = JSON.stringify({ name: 'Ada', work_email: 'ada@example.com', priority: 'message' });

/** Cases run first in every run, so each allowed status is reached whatever the seed. */
const EXAMPLES: Array<[Uint8Array<ArrayBuffer>, string | undefined, string | undefined]> = [
  [bytes(VALID), 'application/json', undefined],
  [bytes(VALID.padEnd(32 * 1024 + 1, ' ')), 'application/json', undefined],
  [bytes('{"name":'), 'application/json', undefined],
  [bytes(VALID), 'text/plain', undefined],
];

describe('POST /api/contact on the real server under arbitrary input', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(HIGH_LIMITS);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers only 200, 400, 413 or 415, with a problem body for every error, and keeps answering', { timeout: 300_000 }, async () => {
    const seen = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(body, contentType, idempotencyKey, async (bytes, type, key) => {
        const headers: Record<string, string> = {};
        if (type !== undefined) headers['content-type'] = type;
        if (key !== undefined) headers['idempotency-key'] = key;
        const response = await fetch(`${server.url}/api/contact`, { method: 'POST', headers, body: bytes, signal: AbortSignal.timeout(10_000) });
        const text = await response.text();
        seen.set(response.status, (seen.get(response.status) ?? 0) + 1);

        expect(ALLOWED, `status ${response.status}: ${text}`).toContain(response.status);
        // Every site response carries the rate-limit fields (docs/interface.md section 6).
        expect(response.headers.get('ratelimit-limit')).toMatch(/^\d+$/);
        if (response.status === 200) {
          expect(response.headers.get('content-type')).toMatch(/^application\/json/);
          expect(JSON.parse(text)).toEqual({ success: true });
          return;
        }
        expect(response.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        const problem = JSON.parse(text) as Record<string, unknown>;
        expect(problem).toMatchObject({ title: expect.any(String), status: response.status, code: expect.any(String) });
        expect((problem['title'] as string).length).toBeGreaterThan(0);
        if (problem['errors'] !== undefined) {
          expect(problem['errors']).toEqual(expect.arrayContaining([expect.objectContaining({ field: expect.any(String), message: expect.any(String) })]));
        }
      }),
      { numRuns: RUNS, examples: EXAMPLES },
    );

    // Every allowed answer was reached (the examples see to it), and nothing else was.
    expect([...seen.keys()].sort((a, b) => a - b)).toEqual(ALLOWED);

    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect(server.child.exitCode).toBeNull();
  });
});
