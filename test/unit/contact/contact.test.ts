import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import {
  ContactPayload,
  contactDelivery,
  isHoneypotFilled,
  parseContactPayload,
  parseIdempotencyKey,
  sameContent,
  submissionContent,
} from '../../../src/features/contact/contact.ts';
import { declaresForeignCharset, isJsonMediaType } from '../../../src/lib/media-type.ts';

const valid = { name: 'Ada', work_email: 'ada@example.com', priority: 'standard' };

describe('ContactPayload', () => {
  it('accepts the three required fields alone', () => {
    expect(parseContactPayload(valid)).toEqual({ ok: true, payload: valid });
  });

  it('trims every string before checking its bounds', () => {
    const parsed = parseContactPayload({ name: `  ${'n'.repeat(200)}  `, work_email: '\tada@example.com\n', priority: 'high', message: ' hi ' });
    expect(parsed).toMatchObject({ ok: true, payload: { name: 'n'.repeat(200), work_email: 'ada@example.com', message: 'hi' } });
  });

  it('drops unknown members instead of refusing them', () => {
    expect(parseContactPayload({ ...valid, company: 'Acme', website: '' })).toEqual({ ok: true, payload: valid });
  });

  it.each([
    ['name', 201],
    ['job_title', 201],
    ['message', 5001],
  ])('refuses a %s of %i characters and takes one less', (field, length) => {
    expect(parseContactPayload({ ...valid, [field]: 'x'.repeat(length) }).ok).toBe(false);
    expect(parseContactPayload({ ...valid, [field]: 'x'.repeat(length - 1) }).ok).toBe(true);
  });

  it('takes a 254-character email address and refuses a 255-character one', () => {
    const at254 = `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(57)}.com`;
    expect(at254).toHaveLength(254);
    expect(parseContactPayload({ ...valid, work_email: at254 }).ok).toBe(true);
    expect(parseContactPayload({ ...valid, work_email: `a${at254}` })).toMatchObject({ ok: false, errors: [{ field: 'work_email' }] });
  });

  it('gives one error per field, in form order, with what is expected', () => {
    const parsed = parseContactPayload({ priority: 'asap', work_email: 'x'.repeat(300), name: 7 });
    expect(parsed).toMatchInlineSnapshot(`
      {
        "errors": [
          {
            "expected": "text of 1 to 200 characters",
            "field": "name",
            "message": "Name must be text, not a number.",
          },
          {
            "expected": "an email address such as ada@example.com, at most 254 characters",
            "field": "work_email",
            "message": "Work email is too long: 300 characters, at most 254 allowed.",
          },
          {
            "expected": "one of "high", "standard", "message"",
            "field": "priority",
            "message": "Priority must be one of high, standard, message.",
          },
        ],
        "ok": false,
      }
    `);
  });

  it('publishes the bounds in its JSON Schema, for the OpenAPI document', () => {
    const schema = z.toJSONSchema(ContactPayload) as { properties: Record<string, Record<string, unknown>>; required: string[] };
    expect(schema.required).toEqual(['name', 'work_email', 'priority']);
    expect(schema.properties['name']).toMatchObject({ minLength: 1, maxLength: 200 });
    expect(schema.properties['work_email']).toMatchObject({ format: 'email', maxLength: 254 });
    expect(schema.properties['priority']).toMatchObject({ enum: ['high', 'standard', 'message'] });
    expect(schema.properties['message']).toMatchObject({ maxLength: 5000 });
  });
});

describe('honeypot', () => {
  it.each([
    [{}, false],
    [{ website: '' }, false],
    [{ website: '   ' }, false],
    [{ website: null }, false],
    [{ website: 'http://spam.example' }, true],
    [{ website: 0 }, true],
    [{ website: false }, true],
    [{ website: [] }, true],
  ])('%j is filled: %s', (body, filled) => {
    expect(isHoneypotFilled(body)).toBe(filled);
  });
});

describe('content type', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['APPLICATION/JSON ;charset=UTF-8', true],
    ['application/problem+json', true],
    ['application/vnd.api+json', true],
    ['text/json', false],
    ['text/plain', false],
    ['application/jsonx', false],
    ['application/x-www-form-urlencoded', false],
    ['', false],
  ])('%j is JSON: %s', (type, expected) => {
    expect(isJsonMediaType(type)).toBe(expected);
  });

  it('notices a declared charset other than UTF-8', () => {
    expect(declaresForeignCharset('application/json; charset=iso-8859-1')).toBe(true);
    expect(declaresForeignCharset('application/json; charset="latin1"')).toBe(true);
    expect(declaresForeignCharset('application/json; charset=UTF-8')).toBe(false);
    expect(declaresForeignCharset('application/json; charset=utf8')).toBe(false);
    expect(declaresForeignCharset('application/json')).toBe(false);
    expect(declaresForeignCharset(null)).toBe(false);
  });
});

describe('Idempotency-Key header', () => {
  it('is optional', () => {
    expect(parseIdempotencyKey(null)).toEqual({ ok: true, key: undefined });
  });

  it('takes a bare or a quoted (structured-field string) key', () => {
    expect(parseIdempotencyKey('8e03978e-40d5-43e8-bc93-6894a57f9324')).toEqual({ ok: true, key: '8e03978e-40d5-43e8-bc93-6894a57f9324' });
    expect(parseIdempotencyKey('"8e03978e"')).toEqual({ ok: true, key: '8e03978e' });
  });

  it.each([[''], ['""'], ['   '], ['k'.repeat(256)], ['caf\u00e9'], ['a\u0001b']])('refuses %j', (header) => {
    expect(parseIdempotencyKey(header)).toMatchObject({ ok: false, error: { field: 'Idempotency-Key' } });
  });
});

describe('stored content', () => {
  it('stores blank optional fields as null and compares retries field by field', () => {
    const a = submissionContent({ name: 'Ada', work_email: 'ada@example.com', priority: 'high', job_title: '' });
    expect(a).toEqual({ name: 'Ada', job_title: null, work_email: 'ada@example.com', priority: 'high', message: null });
    expect(sameContent(a, { ...a })).toBe(true);
    expect(sameContent(a, { ...a, message: 'hi' })).toBe(false);
  });

  it('describes a submission to the webhook with an RFC 3339 time', () => {
    const delivery = contactDelivery({ id: 7, created_at: Date.UTC(2025, 0, 2, 3, 4, 5), name: 'Ada', job_title: null, work_email: 'ada@example.com', priority: 'message', message: null });
    expect(delivery).toEqual({
      type: 'contact_submission',
      id: 7,
      submitted_at: '2025-01-02T03:04:05.000Z',
      name: 'Ada',
      job_title: null,
      work_email: 'ada@example.com',
      priority: 'message',
      message: null,
    });
  });
});
