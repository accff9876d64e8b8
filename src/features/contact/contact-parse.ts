/**
 * Reading a contact body against ContactPayload (contact-payload.ts): the words that turn zod's
 * issues into the `errors` extension of a 400 problem that a person can act on, field by field,
 * and the refusal of members the interface does not have.
 */
import type { z } from 'zod';
import { isCleanTextIssue } from '../../lib/clean-text.ts';
import { fieldErrors, type FieldError } from '../../lib/field-error.ts';
import { describeJsonType, type JsonBodyOptions } from '../../lib/json-body.ts';
import { ALTCHA_FIELD } from './altcha.ts';
import { CONTACT_LIMITS } from './contact-limits.ts';
import { ContactPayload, PRIORITIES, type ContactField } from './contact-payload.ts';
import { HONEYPOT_FIELD } from './honeypot.ts';
import { unknownFieldErrors } from './unknown-fields.ts';

export type { FieldError } from '../../lib/field-error.ts';

/** The words of the contact body's refusals (src/lib/json-body.ts). */
export const CONTACT_BODY: Pick<JsonBodyOptions, 'subject' | 'example' | 'shape'> = {
  subject: 'the form',
  example: '{"name":"Ada","work_email":"ada@example.com","priority":"standard"}',
  shape: 'a JSON object with name, work_email and priority',
};

const LABELS: Record<ContactField, string> = {
  name: 'Name',
  job_title: 'Job title',
  work_email: 'Work email',
  priority: 'Priority',
  message: 'Message',
};

const EXPECTED: Record<ContactField, string> = {
  name: `text of 1 to ${CONTACT_LIMITS.nameChars} characters`,
  job_title: `text of at most ${CONTACT_LIMITS.jobTitleChars} characters, or leave it out`,
  work_email: `an email address such as ada@example.com, at most ${CONTACT_LIMITS.emailChars} characters`,
  priority: `one of ${PRIORITIES.map((p) => `"${p}"`).join(', ')}`,
  message: `text of at most ${CONTACT_LIMITS.messageChars.toLocaleString('en')} characters, or leave it out`,
};

const FIELD_ORDER = Object.keys(LABELS) as ContactField[];

function isContactField(key: string): key is ContactField {
  return typeof key === 'string' && Object.hasOwn(LABELS, key);
}

function messageFor(field: ContactField, issue: z.core.$ZodIssue, value: unknown): string {
  const label = LABELS[field];
  if (value === undefined) return `${label} is required.`;
  switch (issue.code) {
    case 'invalid_type':
      return `${label} must be text, not ${describeJsonType(value)}.`;
    case 'too_small':
      // The only minimum is name's 1 character, checked after trimming: blank means missing.
      return `${label} is required.`;
    case 'too_big': {
      const length = typeof value === 'string' ? value.trim().length : 0;
      return `${label} is too long: ${length.toLocaleString('en')} characters, at most ${Number(issue.maximum).toLocaleString('en')} allowed.`;
    }
    case 'invalid_format':
      if (isCleanTextIssue(issue)) return `${label} contains a character that cannot be stored: NUL (U+0000) or an unpaired surrogate (U+D800 to U+DFFF).`;
      // The other pattern is NOT_BLANK: blank means missing, as for too_small.
      if (issue.format === 'regex') return `${label} is required.`;
      return `${label} must be an email address such as ada@example.com.`;
    case 'invalid_value':
      return `${label} must be one of ${PRIORITIES.join(', ')}.`;
    default:
      return `${label} is not valid: ${issue.message}.`;
  }
}

/**
 * zod issues to `errors` (src/lib/field-error.ts): one entry per field, its first problem, in
 * form order. `body` is the parsed object, used to tell "missing" from "wrong type" and to say
 * how long a too-long value was.
 */
function contactFieldErrors(issues: readonly z.core.$ZodIssue[], body: Record<string, unknown>): FieldError[] {
  return fieldErrors(
    issues,
    (issue, field) =>
      isContactField(field)
        ? { message: messageFor(field, issue, body[field]), expected: EXPECTED[field] }
        : { message: `The body is not valid: ${issue.message}.`, expected: 'a JSON object with the contact fields' },
    FIELD_ORDER,
  );
}

export type ContactParse =
  | { ok: true; payload: ContactPayload }
  | { ok: false; errors: FieldError[] };

/** Validate a parsed body (JSON object or form fields) against ContactPayload; unknown members are errors too. */
export function parseContactPayload(body: Record<string, unknown>): ContactParse {
  const parsed = ContactPayload.safeParse(body);
  const unknown = unknownFieldErrors(body, FIELD_ORDER, [HONEYPOT_FIELD, ALTCHA_FIELD]);
  if (parsed.success && unknown.length === 0) return { ok: true, payload: parsed.data };
  return { ok: false, errors: [...(parsed.success ? [] : contactFieldErrors(parsed.error.issues, body)), ...unknown] };
}
