import { describe, expect, it } from 'vitest';
import { formatFor } from '../../../../src/features/stats/event-import.server.ts';
import { MAX_INSTANT_MS, parseEventRecord, parseInstant, parseNdjsonLine, type EventParse, type InstantParse } from '../../../../src/features/stats/event-record.ts';

/** The reason given for a refused input; the result must be a refusal. */
function refusal(result: InstantParse | EventParse | undefined): string {
  expect(result).toMatchObject({ ok: false, reason: expect.any(String) });
  return (result as { reason: string }).reason;
}

describe('event instants', () => {
  it('reads ISO-8601 instants with Z or an offset, to the millisecond', () => {
    expect(parseInstant('2026-03-01T23:59:59.999Z')).toEqual({ ok: true, ms: Date.UTC(2026, 2, 1, 23, 59, 59, 999) });
    expect(parseInstant('2026-03-02T00:00:00.000Z')).toEqual({ ok: true, ms: Date.UTC(2026, 2, 2) });
    expect(parseInstant('2026-03-02T01:30:00+01:30')).toEqual({ ok: true, ms: Date.UTC(2026, 2, 2) });
    expect(parseInstant('2026-03-01T19:00-05:00')).toEqual({ ok: true, ms: Date.UTC(2026, 2, 2) });
    expect(parseInstant('2026-03-01 12:00:00.123456z')).toEqual({ ok: true, ms: Date.UTC(2026, 2, 1, 12, 0, 0, 123) });
  });

  it('reads epoch milliseconds given as a number or digits', () => {
    expect(parseInstant(1_772_323_200_000)).toEqual({ ok: true, ms: 1_772_323_200_000 });
    expect(parseInstant('1772323200000')).toEqual({ ok: true, ms: 1_772_323_200_000 });
    expect(parseInstant(0)).toEqual({ ok: true, ms: 0 });
  });

  it('refuses local times, impossible dates and times, and out-of-range numbers', () => {
    expect(refusal(parseInstant('2026-03-01T12:00:00'))).toMatchInlineSnapshot(`""2026-03-01T12:00:00" is neither an ISO-8601 instant with offset (2026-01-31T23:59:59.999Z) nor epoch milliseconds"`);
    expect(refusal(parseInstant('2026-02-29T12:00:00Z'))).toMatchInlineSnapshot(`"2026-02-29 is not a calendar date"`);
    expect(refusal(parseInstant('2026-03-01T24:00:00Z'))).toMatchInlineSnapshot(`"24:00:00 is not a time of day"`);
    expect(refusal(parseInstant('2026-03-01T23:59:60Z'))).toMatchInlineSnapshot(`"23:59:60 is not a time of day"`);
    expect(refusal(parseInstant('2026-03-01T12:00:00+25:00'))).toMatchInlineSnapshot(`"+25:00 is not a UTC offset"`);
    expect(parseInstant(-1).ok).toBe(false);
    expect(parseInstant(1.5).ok).toBe(false);
    expect(parseInstant(MAX_INSTANT_MS + 1).ok).toBe(false);
    expect(parseInstant('1969-12-31T23:59:59Z').ok).toBe(false);
  });
});

describe('event records', () => {
  it('turns a transaction line into a row with revenue in cents', () => {
    expect(parseNdjsonLine('{"id":"t1","occurred_at":"2026-03-01T10:00:00Z","kind":"transaction","revenue":"12.30"}')).toEqual({
      ok: true,
      event: { id: 't1', occurred_at: Date.UTC(2026, 2, 1, 10), kind: 'transaction', revenue_minor: 1_230 },
    });
    expect(parseNdjsonLine('{"id":7,"occurred_at":1772323200000,"kind":"transaction","revenue":0.1}')).toEqual({
      ok: true,
      event: { id: '7', occurred_at: 1_772_323_200_000, kind: 'transaction', revenue_minor: 10 },
    });
  });

  it('stores impressions with zero revenue, given as empty, absent or 0', () => {
    for (const revenue of [undefined, '', 0, '0.00']) {
      expect(parseEventRecord({ id: 'i', occurred_at: '2026-03-01T10:00:00Z', kind: 'impression', revenue })).toEqual({
        ok: true,
        event: { id: 'i', occurred_at: Date.UTC(2026, 2, 1, 10), kind: 'impression', revenue_minor: 0 },
      });
    }
  });

  it('skips blank lines without calling them bad', () => {
    expect(parseNdjsonLine('')).toBeUndefined();
    expect(parseNdjsonLine('   \t')).toBeUndefined();
  });

  it('explains each problem of a bad line by field', () => {
    expect(refusal(parseNdjsonLine('{"id":"t","occurred_at":"2026-03-01T10:00:00Z","kind":"transaction","revenue":"1.234"}'))).toMatchInlineSnapshot(`"revenue: 1.234 has more than 2 decimals"`);
    expect(refusal(parseNdjsonLine('{"id":"t","occurred_at":"2026-03-01T10:00:00Z","kind":"transaction"}'))).toMatchInlineSnapshot(`"revenue: required for a transaction"`);
    expect(refusal(parseNdjsonLine('{"id":"t","occurred_at":"2026-03-01T10:00:00Z","kind":"impression","revenue":"0.01"}'))).toMatchInlineSnapshot(`"revenue: an impression carries no revenue (leave it empty or 0)"`);
    expect(refusal(parseNdjsonLine('{"id":"t","occurred_at":"2026-03-01T10:00:00Z","kind":"transaction","revenue":"-5"}'))).toMatchInlineSnapshot(`"revenue: -5 is negative; revenue must be 0 or more"`);
    expect(refusal(parseNdjsonLine('{"id":"","occurred_at":"yesterday","kind":"click"}'))).toMatchInlineSnapshot(`"id: must not be empty; occurred_at: "yesterday" is neither an ISO-8601 instant with offset (2026-01-31T23:59:59.999Z) nor epoch milliseconds; kind: must be transaction or impression, got "click""`);
    // The detail after "not valid JSON" is V8's own wording.
    expect(parseNdjsonLine('{"id":"t"')).toEqual({ ok: false, reason: expect.stringMatching(/^not valid JSON \(.+\)$/) });
    expect(refusal(parseNdjsonLine('["t", 1]'))).toMatchInlineSnapshot(`"expected a JSON object with id, occurred_at, kind, revenue"`);
    expect(refusal(parseEventRecord({ id: 'x'.repeat(129), occurred_at: 0, kind: 'impression' }))).toMatchInlineSnapshot(`"id: must be at most 128 characters"`);
  });
});

describe('import format', () => {
  it('follows the extension, then sniffs the first character', () => {
    expect(formatFor('events.csv', '{"id"')).toBe('csv');
    expect(formatFor('events.NDJSON', 'id,occurred_at')).toBe('ndjson');
    expect(formatFor('events.jsonl', '')).toBe('ndjson');
    expect(formatFor('events.txt', '\uFEFF  {"id":1}')).toBe('ndjson');
    expect(formatFor('events', 'id,occurred_at,kind,revenue')).toBe('csv');
  });
});
