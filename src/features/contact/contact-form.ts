/**
 * The contact page's form logic without the DOM: what the form sends, the checks it makes before
 * sending, how an answer of `POST /api/contact` becomes something to show, and which
 * Idempotency-Key an attempt carries. contact-form.client.ts wires these to the page.
 *
 * Imports of schemas are type-only on purpose: this runs in the browser, and a value import
 * would bundle zod into the page for checks the server makes anyway (it has the last word).
 */
import { retryAfterSeconds } from '../../lib/retry-after.ts';
import type { FieldError } from '../../lib/field-error.ts';

/** The form's inputs by `name`, in the order the page shows them. */
export const FORM_FIELDS = ['name', 'job_title', 'work_email', 'priority', 'message'] as const;
export type FormField = (typeof FORM_FIELDS)[number];

/** Name of the honeypot input (HONEYPOT_FIELD in honeypot.ts; repeated so zod stays server-side). */
export const FORM_HONEYPOT = 'website';

/** Name of the proof-of-work payload (ALTCHA_FIELD in altcha.ts; repeated so zod stays server-side). */
export const FORM_ALTCHA = 'altcha';

/** What the form's inputs hold: text per field; absent for an unchecked radio group. */
export type FormValues = Partial<Record<FormField | typeof FORM_HONEYPOT, string>>;

/**
 * The JSON body for the form's values. Blank optional fields are left out rather than sent as
 * "" (the server would store null either way); text is sent as typed, the server trims it.
 * The honeypot goes along only when something filled it, so the server can drop the submission.
 */
export function contactBody(values: FormValues): Record<string, string> {
  const body: Record<string, string> = {};
  for (const field of FORM_FIELDS) {
    const value = values[field];
    if (value === undefined) continue;
    const optional = field === 'job_title' || field === 'message';
    if (optional && value.trim() === '') continue;
    body[field] = value;
  }
  const trap = values[FORM_HONEYPOT];
  if (trap !== undefined && trap !== '') body[FORM_HONEYPOT] = trap;
  return body;
}

/** Labels as the server's messages use them (contact-parse.ts), so both sources read alike. */
const LABELS: Record<FormField, string> = {
  name: 'Name',
  job_title: 'Job title',
  work_email: 'Work email',
  priority: 'Priority',
  message: 'Message',
};

/**
 * A deliberately loose address shape (something@something.tld, no spaces): it catches typing
 * slips before a request is spent from the hourly contact limit; the server's zod check decides.
 */
const EMAIL_SHAPE = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;

/**
 * Checks made before sending, worded like the server's (contact-parse.ts `messageFor`): missing
 * required fields and an address that cannot be one. Lengths need no check here: the inputs'
 * `maxlength` stops them.
 */
export function precheck(values: FormValues): FieldError[] {
  const errors: FieldError[] = [];
  const required = (field: FormField, expected: string) => {
    if ((values[field] ?? '').trim() === '') errors.push({ field, message: `${LABELS[field]} is required.`, expected });
  };
  required('name', 'your name');
  required('work_email', 'an email address such as ada@example.com');
  const email = (values.work_email ?? '').trim();
  if (email !== '' && !EMAIL_SHAPE.test(email)) {
    errors.push({ field: 'work_email', message: 'Work email must be an email address such as ada@example.com.', expected: 'an email address such as ada@example.com' });
  }
  required('priority', 'one of "high", "standard", "message"');
  return errors;
}

/** The parts of a problem+json body (RFC 9457) the page uses, read defensively. */
export interface ProblemSummary {
  code: string;
  title: string;
  detail: string | undefined;
  resolution: string | undefined;
  /** The `errors` extension of a 400: one entry per invalid field. */
  errors: FieldError[];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** Any JSON (or nothing) to a ProblemSummary; fields that are missing or malformed are left out. */
export function readProblem(body: unknown): ProblemSummary {
  const record = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const errors: FieldError[] = [];
  if (Array.isArray(record['errors'])) {
    for (const entry of record['errors'] as unknown[]) {
      if (typeof entry !== 'object' || entry === null) continue;
      const { field, message, expected } = entry as Record<string, unknown>;
      const said = text(message);
      if (said === undefined) continue;
      const hint = text(expected);
      errors.push({ field: typeof field === 'string' ? field : '', message: said, ...(hint === undefined ? {} : { expected: hint }) });
    }
  }
  return {
    code: text(record['code']) ?? '',
    title: text(record['title']) ?? '',
    detail: text(record['detail']),
    resolution: text(record['resolution']),
    errors,
  };
}

export function isFormField(field: string): field is FormField {
  return (FORM_FIELDS as readonly string[]).includes(field);
}

/** What the page does with an answer. */
export type Outcome =
  /** Stored (or a replay of a stored attempt, or a honeypot drop, which must look the same). */
  | { kind: 'sent' }
  /** 400 with field errors: show them beside the fields. Form-level ones have field "". */
  | { kind: 'invalid'; errors: FieldError[] }
  /** 429: wait this many seconds (Retry-After, RFC 9110 section 10.2.3). */
  | { kind: 'rate-limited'; seconds: number }
  /** 502/503/504 or no answer: not stored, worth trying again later (same key). */
  | { kind: 'unavailable'; detail: string | undefined }
  /** Anything else (413, 415, 422, 5xx): say what the server said. */
  | { kind: 'refused'; message: string };

/** Classify an answer: its status, its parsed JSON body (or undefined) and its Retry-After. */
export function outcomeOf(status: number, body: unknown, retryAfter: string | null, now = Date.now()): Outcome {
  if (status >= 200 && status < 300) return { kind: 'sent' };
  const problem = readProblem(body);
  if (status === 429) return { kind: 'rate-limited', seconds: retryAfterSeconds(retryAfter, now) };
  if (status === 502 || status === 503 || status === 504) return { kind: 'unavailable', detail: problem.detail };
  if (status === 400 && problem.errors.length > 0) return { kind: 'invalid', errors: problem.errors };
  const message = [problem.detail ?? (problem.title || `The server answered HTTP ${status}.`), problem.resolution].filter(Boolean).join(' ');
  return { kind: 'refused', message };
}

// Shared with the other pages' scripts (src/lib/retry-after.ts); re-exported for this form's script.
export { describeWait, retryAfterSeconds } from '../../lib/retry-after.ts';


/**
 * Idempotency-Key per submission attempt (draft-ietf-httpapi-idempotency-key-header): sending
 * the same content again after no answer, a 429 or a 502 reuses the key, so a first attempt that
 * was in fact stored is answered as a replay instead of stored twice. Changed content gets a new
 * key (the server refuses a key reused for other content with 422), and so does anything after
 * an attempt that settled (sent, or refused for good).
 */
export class AttemptKeys {
  #newKey: () => string;
  #pending: { body: string; key: string } | undefined;

  constructor(newKey: () => string) {
    this.#newKey = newKey;
  }

  /** The key for sending `body` (the exact JSON text). */
  keyFor(body: string): string {
    if (this.#pending?.body !== body) this.#pending = { body, key: this.#newKey() };
    return this.#pending.key;
  }

  /** The last attempt has a final answer: the next send is a new submission. */
  finish(): void {
    this.#pending = undefined;
  }
}

/** A version 4 UUID (RFC 9562 section 5.4) from 16 random bytes. */
export function uuidFromBytes(bytes: Uint8Array): string {
  const b = Array.from(bytes.subarray(0, 16), (x) => x);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = b.map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** "1,234 characters left" / "12 characters too many", for the message counter. */
export function describeRemaining(used: number, limit: number): string {
  const left = limit - used;
  const n = Math.abs(left).toLocaleString('en');
  if (left >= 0) return `${n} character${Math.abs(left) === 1 ? '' : 's'} left`;
  return `${n} character${Math.abs(left) === 1 ? '' : 's'} too many`;
}
