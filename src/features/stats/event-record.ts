/**
 * One raw event as producers send it (an NDJSON line or a CSV row), and its conversion to a row
 * of the `event` table. Pure: the streaming importer (event-import.server.ts) feeds it lines.
 */
import { z } from 'zod';
import type { NewEvent } from '../../db/schema.ts';
import { MS_PER_DAY, checkDay } from '../../lib/calendar.ts';
import { amountToCents } from './money.ts';

/** 9999-12-31T23:59:59.999Z: the last instant with a four-digit year. */
export const MAX_INSTANT_MS = 253_402_300_799_999;

/**
 * RFC 3339 date-time (the internet profile of ISO 8601): an explicit offset is required, since
 * a bare local time names no instant. Lowercase t/z and a space separator are allowed as RFC
 * 3339 section 5.6 notes; fractions beyond milliseconds are truncated.
 */
const INSTANT_PATTERN = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|([+-])(\d{2}):?(\d{2}))$/;

export type InstantParse = { ok: true; ms: number } | { ok: false; reason: string };

/** An ISO-8601/RFC 3339 instant or epoch milliseconds (number or digit string) to epoch ms. */
export function parseInstant(input: string | number): InstantParse {
  if (typeof input === 'number') {
    if (!Number.isSafeInteger(input) || input < 0 || input > MAX_INSTANT_MS) {
      return { ok: false, reason: `${input} is not a whole number of milliseconds since 1970-01-01 (0 to ${MAX_INSTANT_MS})` };
    }
    return { ok: true, ms: input };
  }
  const text = input.trim();
  if (/^\d{1,15}$/.test(text)) return parseInstant(Number(text));
  const match = INSTANT_PATTERN.exec(text);
  if (!match) {
    const shown = JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
    return { ok: false, reason: `${shown} is neither an ISO-8601 instant with offset (2026-01-31T23:59:59.999Z) nor epoch milliseconds` };
  }
  const [, date, hh, mm, ss = '0', fraction = '', zone, sign, offH = '0', offM = '0'] = match;
  const day = checkDay(date!);
  if (!day.ok) return { ok: false, reason: `${date} is not a calendar date` };
  const hours = Number(hh);
  const minutes = Number(mm);
  const seconds = Number(ss);
  // Leap seconds (":60") cannot be represented in epoch milliseconds; refuse rather than guess.
  if (hours > 23 || minutes > 59 || seconds > 59) return { ok: false, reason: `${hh}:${mm}:${ss.padStart(2, '0')} is not a time of day` };
  const offsetHours = Number(offH);
  const offsetMinutes = Number(offM);
  if (offsetHours > 23 || offsetMinutes > 59) return { ok: false, reason: `${zone} is not a UTC offset` };
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const ms =
    day.epochDay * MS_PER_DAY + hours * 3_600_000 + minutes * 60_000 + seconds * 1_000 + Number(fraction.padEnd(3, '0').slice(0, 3)) - offsetMs;
  if (ms < 0 || ms > MAX_INSTANT_MS) return { ok: false, reason: `${text} is outside 1970-01-01 to 9999-12-31 (UTC)` };
  return { ok: true, ms };
}

/** An empty CSV cell means "not given". */
const blankToUndefined = (value: unknown) => (value === '' || value === null ? undefined : value);

export const EventInput = z
  .object({
    /** Producer-assigned unique id (1-128 characters); importing the same id again is a no-op. */
    id: z
      .union([z.string(), z.int().nonnegative()], { error: 'required: a string of 1 to 128 characters' })
      .transform((value) => String(value).trim())
      .pipe(z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters')),
    /** When it happened: an ISO-8601 instant with offset, or epoch milliseconds. */
    occurred_at: z
      .union([z.string(), z.number()], { error: 'required: an ISO-8601 instant such as 2026-01-31T23:59:59Z, or epoch milliseconds' })
      .transform((value, ctx) => {
        const parsed = parseInstant(value);
        if (parsed.ok) return parsed.ms;
        ctx.addIssue({ code: 'custom', message: parsed.reason });
        return z.NEVER;
      }),
    /** What happened. */
    kind: z.enum(['transaction', 'impression'], { error: (issue) => `must be transaction or impression${issue.input === undefined ? '' : `, got ${JSON.stringify(String(issue.input).slice(0, 40))}`}` }),
    /** Revenue of a transaction in currency units, as a decimal with at most two places; absent or 0 for an impression. */
    revenue: z.preprocess(
      blankToUndefined,
      z
        .union([z.string(), z.number()], { error: 'must be a decimal amount such as 12.34' })
        .transform((value, ctx) => {
          const parsed = amountToCents(value);
          if (!parsed.ok) {
            ctx.addIssue({ code: 'custom', message: parsed.reason });
            return z.NEVER;
          }
          if (parsed.cents < 0) {
            ctx.addIssue({ code: 'custom', message: `${value} is negative; revenue must be 0 or more` });
            return z.NEVER;
          }
          return parsed.cents;
        })
        .optional(),
    ),
  })
  .check((ctx) => {
    const { kind, revenue } = ctx.value;
    if (kind === 'transaction' && revenue === undefined) {
      ctx.issues.push({ code: 'custom', path: ['revenue'], message: 'required for a transaction', input: revenue });
    }
    if (kind === 'impression' && revenue !== undefined && revenue !== 0) {
      ctx.issues.push({ code: 'custom', path: ['revenue'], message: 'an impression carries no revenue (leave it empty or 0)', input: revenue });
    }
  });
export type EventInput = z.input<typeof EventInput>;

export type EventParse = { ok: true; event: NewEvent } | { ok: false; reason: string };

/** Validate one record (already split into fields) and turn it into an `event` row. */
export function parseEventRecord(record: unknown): EventParse {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return { ok: false, reason: 'expected a JSON object with id, occurred_at, kind, revenue' };
  const parsed = EventInput.safeParse(record);
  if (!parsed.success) {
    return { ok: false, reason: parsed.error.issues.map((issue) => `${issue.path.join('.') || 'event'}: ${issue.message}`).join('; ') };
  }
  const { id, occurred_at, kind, revenue } = parsed.data;
  return { ok: true, event: { id, occurred_at, kind, revenue_minor: revenue ?? 0 } };
}

/** One NDJSON line; `undefined` for a blank line (skipped, not an error). */
export function parseNdjsonLine(line: string): EventParse | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `not valid JSON (${(error as Error).message})` };
  }
  return parseEventRecord(value);
}
