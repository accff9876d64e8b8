/**
 * The ContactPayload body of `POST /api/contact` (docs/interface.md sections 2, 3 and 5) and the
 * pure rules around it: the honeypot, the Idempotency-Key header, and the words that turn zod's
 * issues into the `errors` extension of a 400 problem that a person can act on, field by field.
 */
import { z } from 'zod';
import { cleanText, isCleanTextIssue } from '../../lib/clean-text.ts';
import { fieldErrors, type FieldError } from '../../lib/field-error.ts';
import { describeJsonType, type JsonBodyOptions } from '../../lib/json-body.ts';
import { ALTCHA_FIELD } from './altcha.ts';
import { unknownFieldErrors } from './unknown-fields.ts';

export type { FieldError } from '../../lib/field-error.ts';

/** Length bounds. Characters are UTF-16 code units, as `String.length` and zod count them. */
export const CONTACT_LIMITS = {
  nameChars: 200,
  jobTitleChars: 200,
  /** RFC 5321 section 4.5.3.1.3: a forward path holds at most 256 octets including `<` and `>`. */
  emailChars: 254,
  messageChars: 5000,
  /**
   * Largest request body, in bytes: the contact route's `bodyLimit` in the route table
   * (src/server/routes.ts), within which the body is read before the endpoint sees it.
   */
  bodyBytes: 32 * 1024,
} as const;

/** At least one character that is not white space: what "not blank" means, as a JSON Schema pattern. */
const NOT_BLANK = /\S/;

/** The words of the contact body's refusals (src/lib/json-body.ts). */
export const CONTACT_BODY: Pick<JsonBodyOptions, 'subject' | 'example' | 'shape'> = {
  subject: 'the form',
  example: '{"name":"Ada","work_email":"ada@example.com","priority":"standard"}',
  shape: 'a JSON object with name, work_email and priority',
};

export const PRIORITIES = ['high', 'standard', 'message'] as const;

/**
 * The contact form. White space around every string is removed before anything else, and the
 * bounds apply to what remains; unknown members are refused by parseContactPayload (a misspelt
 * `mesage` would otherwise be dropped and the message lost), and never stored. Text may not hold NUL or unpaired surrogates (src/lib/clean-text.ts).
 *
 * The email keeps its trimming rather than refusing surrounding spaces: the page sends what was
 * typed, and a pasted or autofilled address often ends in a space nobody can see; refusing it
 * would spend one of the sender's hourly attempts on an invisible character. The description
 * says so, since the published `pattern` alone would refuse such a value.
 */
export const ContactPayload = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(CONTACT_LIMITS.nameChars)
      .regex(NOT_BLANK)
      .check(cleanText())
      .meta({
        description: 'Who is writing: 1 to 200 characters after surrounding white space is removed; not blank.',
        examples: ['Ada Lovelace'],
      }),
    job_title: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.jobTitleChars)
      .check(cleanText())
      .optional()
      .meta({ description: 'Their role, if they want to say: at most 200 characters after surrounding white space is removed. Blank counts as absent.', examples: ['Head of Programmatic'] }),
    work_email: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.emailChars)
      // The address pattern admits ASCII only, so NUL and surrogates are already refused.
      .check(z.email())
      .meta({
        description:
          'Where the team answers: an email address, at most 254 characters. Surrounding white space is removed before the address is checked and stored, so " ada@example.com " is accepted as "ada@example.com".',
        examples: ['ada@harbourdaily.example'],
      }),
    priority: z.enum(PRIORITIES).meta({ description: 'How soon they need an answer: `high`, `standard`, or `message` (no reply needed).', examples: ['standard'] }),
    message: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.messageChars)
      .check(cleanText())
      .optional()
      .meta({
        description: 'What they want to tell us: at most 5,000 characters after surrounding white space is removed. Blank counts as absent.',
        examples: ['We would like to list our sports inventory with you. Who can we talk to?'],
      }),
  })
  .meta({ description: 'The contact form. Strings are trimmed; an unknown member is refused (400, naming it and the nearest field), except the honeypot `website` and the proof of work `altcha`, which are accepted and never stored.' });
export type ContactPayload = z.infer<typeof ContactPayload>;
export type ContactField = keyof ContactPayload;

/**
 * The honeypot: a form input hidden from people (CSS and `aria-hidden`, `tabindex="-1"`,
 * `autocomplete="off"`) that form-filling bots complete. Not part of ContactPayload: it is not
 * a field of the interface, only a signal, and is never stored.
 */
export const HONEYPOT_FIELD = 'website';

/** True when the honeypot holds anything but nothing (absent, null, or blank text). */
export function isHoneypotFilled(body: Record<string, unknown>): boolean {
  const value = body[HONEYPOT_FIELD];
  if (value === undefined || value === null) return false;
  return typeof value !== 'string' || value.trim() !== '';
}

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
export function contactFieldErrors(issues: readonly z.core.$ZodIssue[], body: Record<string, unknown>): FieldError[] {
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

/** Longest Idempotency-Key accepted; a UUID is 36 characters. */
export const IDEMPOTENCY_KEY_MAX = 255;

/**
 * The `Idempotency-Key` request header's value (draft-ietf-httpapi-idempotency-key-header): in
 * practice a UUID. Printable ASCII, no leading or trailing space, 1 to 255 characters.
 */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX)
  .regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/)
  .meta({
    description:
      'A unique value per submission, such as a UUID: 1 to 255 printable ASCII characters, sent bare or as a structured-field string in double quotes. A retry with the same key and content is stored once; the same key with other content is refused with 422.',
    examples: ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
  });

export type IdempotencyKeyParse = { ok: true; key: string | undefined } | { ok: false; error: FieldError };

/**
 * The header as sent: absent means no idempotency; a structured-field string (RFC 9651
 * section 3.3.3) loses its quotes; the rest must satisfy IdempotencyKey.
 */
export function parseIdempotencyKey(header: string | null): IdempotencyKeyParse {
  if (header === null) return { ok: true, key: undefined };
  let key = header.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  const parsed = IdempotencyKey.safeParse(key);
  if (parsed.success) return { ok: true, key: parsed.data };
  return {
    ok: false,
    error: {
      field: 'Idempotency-Key',
      message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      expected: 'a unique value per submission, such as a UUID (crypto.randomUUID())',
    },
  };
}

/** The columns a submission's content occupies; empty optional text is stored as null. */
export interface SubmissionContent {
  name: string;
  job_title: string | null;
  work_email: string;
  priority: ContactPayload['priority'];
  message: string | null;
}

export function submissionContent(payload: ContactPayload): SubmissionContent {
  return {
    name: payload.name,
    job_title: payload.job_title || null,
    work_email: payload.work_email,
    priority: payload.priority,
    message: payload.message || null,
  };
}

/** Whether a stored submission carries the same content (a retry, not a reuse of its key). */
export function sameContent(a: SubmissionContent, b: SubmissionContent): boolean {
  return a.name === b.name && a.job_title === b.job_title && a.work_email === b.work_email && a.priority === b.priority && a.message === b.message;
}

/**
 * What the outbox POSTs to CONTACT_WEBHOOK_URL for each stored submission. The request also
 * carries `Idempotency-Key: contact-submission-<id>`: delivery is at least once (a crash between
 * the webhook's 2xx and our bookkeeping sends again), so receivers deduplicate on it.
 */
export const ContactDelivery = z.object({
  /** Always `contact_submission`. */
  type: z.literal('contact_submission'),
  /** The submission's id in our database; stable across redeliveries. */
  id: z.number().int(),
  /** When it was submitted, RFC 3339 UTC. */
  submitted_at: z.iso.datetime(),
  /** As in ContactPayload. */
  name: z.string(),
  /** As in ContactPayload; null when not given. */
  job_title: z.string().nullable(),
  /** As in ContactPayload. */
  work_email: z.string(),
  /** As in ContactPayload. */
  priority: z.enum(PRIORITIES),
  /** As in ContactPayload; null when not given. */
  message: z.string().nullable(),
});
export type ContactDelivery = z.infer<typeof ContactDelivery>;

export function contactDelivery(row: SubmissionContent & { id: number; created_at: number }): ContactDelivery {
  return {
    type: 'contact_submission',
    id: row.id,
    submitted_at: new Date(row.created_at).toISOString(),
    name: row.name,
    job_title: row.job_title,
    work_email: row.work_email,
    priority: row.priority,
    message: row.message,
  };
}
