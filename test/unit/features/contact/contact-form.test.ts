import { describe, expect, it } from 'vitest';
import {
  AttemptKeys,
  contactBody,
  describeRemaining,
  describeWait,
  outcomeOf,
  precheck,
  readProblem,
  retryAfterSeconds,
  uuidFromBytes,
} from '../../../../src/features/contact/contact-form.ts';
import { parseContactPayload } from '../../../../src/features/contact/contact-parse.ts';

describe('the body the contact page sends', () => {
  it('leaves out blank optional fields and keeps required ones as typed', () => {
    expect(contactBody({ name: ' Ada ', job_title: '  ', work_email: 'ada@example.com', priority: 'high', message: '', website: '' })).toEqual({
      name: ' Ada ',
      work_email: 'ada@example.com',
      priority: 'high',
    });
  });

  it('sends the honeypot only when something filled it', () => {
    expect(contactBody({ name: 'Bot', website: 'http://spam.example' })).toEqual({ name: 'Bot', website: 'http://spam.example' });
  });

  it('omits the priority when no radio is checked', () => {
    expect(contactBody({ name: 'Ada', work_email: 'ada@example.com' })).not.toHaveProperty('priority');
  });
});

describe('the checks made before sending', () => {
  it('word missing fields exactly as the server does', () => {
    const server = parseContactPayload({});
    expect(server.ok).toBe(false);
    const serverMessages = server.ok ? [] : server.errors.map((e) => [e.field, e.message]);
    expect(precheck({}).map((e) => [e.field, e.message])).toEqual(serverMessages);
  });

  it('word an impossible address exactly as the server does', () => {
    const server = parseContactPayload({ name: 'Ada', work_email: 'ada@', priority: 'high' });
    expect(server.ok ? [] : server.errors.map((e) => e.message)).toEqual(precheck({ name: 'Ada', work_email: 'ada@', priority: 'high' }).map((e) => e.message));
  });

  it('pass a complete form, leaving finer address rules to the server', () => {
    expect(precheck({ name: 'Ada', work_email: 'ada..x@example.com', priority: 'standard' })).toEqual([]);
  });

  it('treat blank text as missing', () => {
    expect(precheck({ name: '   ', work_email: 'ada@example.com', priority: 'message' })).toEqual([
      { field: 'name', message: 'Name is required.', expected: 'your name' },
    ]);
  });
});

describe('reading an answer', () => {
  it('takes a 200 as sent', () => {
    expect(outcomeOf(200, { success: true }, null)).toEqual({ kind: 'sent' });
  });

  it('takes a 400 with errors as field errors', () => {
    const errors = [{ field: 'work_email', message: 'Work email must be an email address such as ada@example.com.', expected: 'an email address' }];
    expect(outcomeOf(400, { status: 400, code: 'validation_failed', title: 'Invalid request', errors }, null)).toEqual({ kind: 'invalid', errors });
  });

  it('says what the server said for a 400 without field errors, and for 413 or 415', () => {
    expect(outcomeOf(400, { title: 'Malformed JSON', detail: 'The request body is not valid JSON.', resolution: 'Check the JSON syntax.' }, null)).toEqual({
      kind: 'refused',
      message: 'The request body is not valid JSON. Check the JSON syntax.',
    });
    expect(outcomeOf(413, { title: 'Request body too large' }, null)).toEqual({ kind: 'refused', message: 'Request body too large' });
    expect(outcomeOf(415, undefined, null)).toEqual({ kind: 'refused', message: 'The server answered HTTP 415.' });
  });

  it('takes the wait of a 429 from Retry-After', () => {
    expect(outcomeOf(429, { code: 'rate_limited' }, '1200')).toEqual({ kind: 'rate-limited', seconds: 1200 });
  });

  it('takes a 502 as worth retrying, keeping its detail', () => {
    expect(outcomeOf(502, { detail: 'Your message could not be stored just now.' }, null)).toEqual({ kind: 'unavailable', detail: 'Your message could not be stored just now.' });
  });

  it('ignores malformed problem members rather than failing on them', () => {
    expect(readProblem({ errors: [null, 3, { field: 7, message: 'Name is required.' }, { message: '' }], detail: 5 })).toEqual({
      code: '',
      title: '',
      detail: undefined,
      resolution: undefined,
      errors: [{ field: '', message: 'Name is required.' }],
    });
    expect(readProblem('not an object').errors).toEqual([]);
  });
});

describe('waiting after a 429', () => {
  it('reads delay-seconds and HTTP-dates, and falls back to a minute', () => {
    const now = Date.parse('2026-11-22T10:00:00Z');
    expect(retryAfterSeconds('90', now)).toBe(90);
    expect(retryAfterSeconds('Sun, 22 Nov 2026 10:05:00 GMT', now)).toBe(300);
    expect(retryAfterSeconds('soon', now)).toBe(60);
    expect(retryAfterSeconds(null, now)).toBe(60);
  });

  it('describes a wait in the largest whole unit, rounded up', () => {
    expect([1, 45, 60, 61, 1200, 3600, 3601, 86_400].map(describeWait)).toEqual(['1 second', '45 seconds', '1 minute', '2 minutes', '20 minutes', '1 hour', '2 hours', '24 hours']);
  });
});

describe('Idempotency-Key per attempt', () => {
  it('reuses the key when the same content is sent again, and not after the attempt settled', () => {
    let n = 0;
    const keys = new AttemptKeys(() => `key-${++n}`);
    expect(keys.keyFor('{"name":"Ada"}')).toBe('key-1');
    expect(keys.keyFor('{"name":"Ada"}')).toBe('key-1');
    keys.finish();
    expect(keys.keyFor('{"name":"Ada"}')).toBe('key-2');
  });

  it('gives changed content a new key', () => {
    let n = 0;
    const keys = new AttemptKeys(() => `key-${++n}`);
    keys.keyFor('{"name":"Ada"}');
    expect(keys.keyFor('{"name":"Ada L."}')).toBe('key-2');
  });

  it('formats random bytes as a version 4 UUID', () => {
    const uuid = uuidFromBytes(new Uint8Array(16).fill(0xff));
    expect(uuid).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(uuidFromBytes(new Uint8Array(16))).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });
});

describe('the message counter', () => {
  it('counts down, then counts what is over', () => {
    expect(describeRemaining(0, 5000)).toBe('5,000 characters left');
    expect(describeRemaining(4999, 5000)).toBe('1 character left');
    expect(describeRemaining(5012, 5000)).toBe('12 characters too many');
  });
});
