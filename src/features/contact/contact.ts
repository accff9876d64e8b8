/**
 * The ContactPayload body of `POST /api/contact` (interface spec sections 2, 4 and 7) and the
 * pure rules around it: which content types are JSON, the honeypot, the Idempotency-Key header,
 * and how zod's issues become the `errors` extension of a 400 problem (RFC 9457 section 3.2
 * allows extension members) that a person can act on, field by field.
 */
import { z } from 'zod';

/** Length bounds. Characters are UTF-16 code units, as `String.length` and zod count them. */
export const CONTACT_LIMITS = {
  nameChars: 200,
  jobTitleChars: 200,
  /** RFC 5321 section 4.5.3.1.3: a forward path holds at most 256 octets including `<` and `>`. */
  emailChars: 254,
  messageChars: 5000,
  /** Largest request body, in bytes. The edge refuses larger bodies while reading. */
  bodyBytes: 32 * 1024,
} as const;

export const PRIORITIES = ['high', 'standard', 'message'] as const;

/**
 * The contact form. Strings are trimmed before their bounds are checked; unknown members are
 * dropped (zod's default `strip`), so they are never stored.
 */
export const ContactPayload = z
  .object({
    /** Who is writing: 1 to 200 characters. */
    name: z.string().trim().min(1).max(CONTACT_LIMITS.nameChars).meta({ description: 'Who is writing: 1 to 200 characters.', examples: ['Ada Lovelace'] }),
    /** Their role, if they want to say: at most 200 characters. */
    job_title: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.jobTitleChars)
      .optional()
      .meta({ description: 'Their role, if they want to say: at most 200 characters.', examples: ['Head of Programmatic'] }),
    /** Where the team answers: an email address, at most 254 characters. */
    work_email: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.emailChars)
      .check(z.email())
      .meta({ description: 'Where the team answers: an email address, at most 254 characters.', examples: ['ada@harbourdaily.example'] }),
    /** How soon they need an answer: `high`, `standard`, or `message` (no reply needed). */
    priority: z.enum(PRIORITIES).meta({ description: 'How soon they need an answer: `high`, `standard`, or `message` (no reply needed).', examples: ['standard'] }),
    /** What they want to tell us: at most 5,000 characters. */
    message: z
      .string()
      .trim()
      .max(CONTACT_LIMITS.messageChars)
      .optional()
      .meta({ description: 'What they want to tell us: at most 5,000 characters.', examples: ['We would like to list our sports inventory with you. Who can we talk to?'] }),
  })
  .meta({ description: 'The contact form. Strings are trimmed; unknown members are ignored and never stored.' });
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

/** One invalid field, as listed in the 400 problem's `errors` extension. */
export interface FieldError {
  /** The body member, e.g. `work_email`; an empty string means the body as a whole. */
  field: string;
  /** What is wrong, in words a person can act on; a form shows it beside the input. */
  message: string;
  /** What a valid value looks like. */
  expected: string;
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

function isContactField(key: PropertyKey | undefined): key is ContactField {
  return typeof key === 'string' && Object.hasOwn(LABELS, key);
}

/** The JSON type of a value, with its article: `a number`, `an array`, `null` (RFC 8259 terms). */
function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return 'an object';
  }
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
      return `${label} must be an email address such as ada@example.com.`;
    case 'invalid_value':
      return `${label} must be one of ${PRIORITIES.join(', ')}.`;
    default:
      return `${label} is not valid: ${issue.message}.`;
  }
}

/**
 * zod issues to `errors`: one entry per field (its first problem, which is what the person
 * fixes first), in form order. `body` is the parsed object, used to tell "missing" from
 * "wrong type" and to say how long a too-long value was.
 */
export function contactFieldErrors(issues: readonly z.core.$ZodIssue[], body: Record<string, unknown>): FieldError[] {
  const byField = new Map<string, FieldError>();
  for (const issue of issues) {
    const key = issue.path[0];
    if (isContactField(key)) {
      if (!byField.has(key)) byField.set(key, { field: key, message: messageFor(key, issue, body[key]), expected: EXPECTED[key] });
    } else if (!byField.has('')) {
      byField.set('', { field: '', message: `The body is not valid: ${issue.message}.`, expected: 'a JSON object with the contact fields' });
    }
  }
  const order = (field: string) => (isContactField(field) ? FIELD_ORDER.indexOf(field) : -1);
  return [...byField.values()].sort((a, b) => order(a.field) - order(b.field));
}

export type ContactParse =
  | { ok: true; payload: ContactPayload }
  | { ok: false; errors: FieldError[] };

/** Validate a parsed JSON object against ContactPayload. */
export function parseContactPayload(body: Record<string, unknown>): ContactParse {
  const parsed = ContactPayload.safeParse(body);
  return parsed.success ? { ok: true, payload: parsed.data } : { ok: false, errors: contactFieldErrors(parsed.error.issues, body) };
}

/** The error entry for a body that is JSON but not an object (an array, a string, null...). */
export function notAnObjectError(value: unknown): FieldError {
  return {
    field: '',
    message: `The body must be a JSON object, not ${describeJsonType(value)}.`,
    expected: 'a JSON object with name, work_email and priority, e.g. {"name":"Ada","work_email":"ada@example.com","priority":"standard"}',
  };
}

export { isJsonMediaType } from '../../lib/media-type.ts';

/**
 * JSON is UTF-8 on the wire (RFC 8259 section 8.1), so a declared charset other than UTF-8 is
 * an encoding we would misread: refuse it rather than guess.
 */
export function declaresForeignCharset(contentType: string | null): boolean {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match !== null && !/^utf-?8$/i.test(match[1]!);
}

/** Longest Idempotency-Key accepted; a UUID is 36 characters. */
export const IDEMPOTENCY_KEY_MAX = 255;

export type IdempotencyKeyParse = { ok: true; key: string | undefined } | { ok: false; error: FieldError };

/**
 * The `Idempotency-Key` request header (draft-ietf-httpapi-idempotency-key-header): a
 * structured-field string, in practice a UUID, sent quoted or bare. Absent means no
 * idempotency; present but blank, too long or with control characters is refused.
 */
export function parseIdempotencyKey(header: string | null): IdempotencyKeyParse {
  if (header === null) return { ok: true, key: undefined };
  let key = header.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  if (/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key) && key.length <= IDEMPOTENCY_KEY_MAX) return { ok: true, key };
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
