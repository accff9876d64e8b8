import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { parseContactPayload } from '../../../../src/features/contact/contact-parse.ts';
import { ContactPayload } from '../../../../src/features/contact/contact-payload.ts';

const valid = { name: 'Ada', work_email: 'ada@example.com', priority: 'standard' };

describe('ContactPayload', () => {
  it('accepts the three required fields alone', () => {
    expect(parseContactPayload(valid)).toEqual({ ok: true, payload: valid });
  });

  it('trims every string before checking its bounds', () => {
    const parsed = parseContactPayload({ name: `  ${'n'.repeat(200)}  `, work_email: '\tada@example.com\n', priority: 'high', message: ' hi ' });
    expect(parsed).toMatchObject({ ok: true, payload: { name: 'n'.repeat(200), work_email: 'ada@example.com', message: 'hi' } });
  });

  it('refuses unknown members, naming the nearest field, and takes the honeypot and proof of work beside it', () => {
    expect(parseContactPayload({ ...valid, mesage: 'hi', Company: 'Acme' })).toMatchInlineSnapshot(`
      {
        "errors": [
          {
            "expected": "one of the fields name, job_title, work_email, priority, message",
            "field": "mesage",
            "message": "Unknown field "mesage": did you mean "message"?",
          },
          {
            "expected": "one of the fields name, job_title, work_email, priority, message",
            "field": "Company",
            "message": "Unknown field "Company": the contact fields are name, job_title, work_email, priority, message.",
          },
        ],
        "ok": false,
      }
    `);
    expect(parseContactPayload({ ...valid, website: '', altcha: 'x' })).toEqual({ ok: true, payload: valid });
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

describe('ContactPayload as published', () => {
  type StringSchema = { pattern?: string; allOf?: Array<{ pattern?: string }>; minLength?: number; maxLength?: number; format?: string; description?: string };
  const published = (z.toJSONSchema(ContactPayload) as { properties: Record<string, StringSchema> }).properties;
  /** Does a value satisfy what the document says (lengths and every pattern, ECMA-262 with `u`)? */
  const documentAccepts = (schema: StringSchema, value: string) =>
    value.length >= (schema.minLength ?? 0) &&
    value.length <= (schema.maxLength ?? Infinity) &&
    [schema.pattern, ...(schema.allOf ?? []).map((part) => part.pattern)].every((pattern) => pattern === undefined || new RegExp(pattern, 'u').test(value));
  const samples = ['', ' ', ' \t\n ', 'a', ' Ada ', 'Ada\u0000', 'Ada \ud800', '\udfffAda', 'Ada \u{1F600}'];

  it.each(['name', 'job_title', 'message'])('says exactly which %s values the server takes', (field) => {
    for (const value of samples) {
      const server = parseContactPayload({ ...valid, [field]: value }).ok;
      expect([value, documentAccepts(published[field]!, value)]).toEqual([value, server]);
    }
  });

  it('publishes "not blank" as a pattern, so "  " is refused by the document as by the server', () => {
    expect(published['name']).toMatchObject({ minLength: 1, allOf: expect.arrayContaining([{ pattern: '\\S' }]) });
    expect(parseContactPayload({ ...valid, name: '  ' })).toMatchObject({ ok: false, errors: [{ field: 'name', message: 'Name is required.' }] });
  });

  it('documents that the email is trimmed, since the address pattern alone would refuse surrounding spaces', () => {
    expect(documentAccepts(published['work_email']!, ' ada@example.com ')).toBe(false);
    expect(parseContactPayload({ ...valid, work_email: ' ada@example.com ' })).toMatchObject({ ok: true, payload: { work_email: 'ada@example.com' } });
    expect(published['work_email']!.description).toContain('Surrounding white space is removed before the address is checked and stored');
  });
});
