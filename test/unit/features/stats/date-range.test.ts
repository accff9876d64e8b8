import { describe, expect, it } from 'vitest';
import { DataQuery, MAX_RANGE_DAYS, parseDateRange } from '../../../../src/features/stats/date-range.ts';
import { HttpError } from '../../../../src/lib/http-error.ts';

/** The error a query gets, as "status code: message". */
function refusal(query: string): string {
  try {
    parseDateRange(new URLSearchParams(query));
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return `${error.status} ${error.code}: ${error.detail}`;
  }
  throw new Error(`expected ${query} to be refused`);
}

describe('data query validation', () => {
  it('checks a pair of dates without the schema exactly as the schema would: the same dates accepted, its messages for the rest', () => {
    const values = ['2026-01-31', '2026-02-01', '2026-02-29', '2028-02-29', '2026-13-01', '2026-01-00', '2026-1-01', '', 'x', '0000-01-01'];
    for (const startDate of values) {
      for (const endDate of values) {
        const schema = DataQuery.safeParse({ startDate, endDate });
        const query = new URLSearchParams({ startDate, endDate }).toString();
        if (schema.success) {
          // Accepted dates: only the order and span rules may refuse them.
          const span = Math.abs(Date.parse(endDate) - Date.parse(startDate)) / 86_400_000 + 1;
          if (Date.parse(endDate) >= Date.parse(startDate) && span <= MAX_RANGE_DAYS) expect(parseDateRange(new URLSearchParams(query))).toMatchObject({ startDate, endDate });
          else expect(refusal(query)).toMatch(/before startDate|covers \d+ days/);
        } else {
          expect(refusal(query), query).toBe(`400 SVC1005: ${schema.error.issues.map((issue) => issue.message).join('; ')}`);
        }
      }
    }
  });

  it('accepts a valid range and reports its length in days', () => {
    expect(parseDateRange(new URLSearchParams('startDate=2026-03-01&endDate=2026-03-31'))).toEqual({
      startDate: '2026-03-01',
      endDate: '2026-03-31',
      start: 20_513,
      end: 20_543,
      days: 31,
    });
    expect(parseDateRange(new URLSearchParams('startDate=2026-03-01&endDate=2026-03-01')).days).toBe(1);
  });

  it('accepts exactly 31 days and refuses 32 with SVC1005', () => {
    expect(parseDateRange(new URLSearchParams('startDate=2026-01-01&endDate=2026-01-31')).days).toBe(MAX_RANGE_DAYS);
    expect(refusal('startDate=2026-01-01&endDate=2026-02-01')).toMatchInlineSnapshot(`"400 SVC1005: the range 2026-01-01 to 2026-02-01 covers 32 days; at most 31 are allowed (endDate at the latest 2026-01-31)"`);
  });

  it('counts a range across a leap day correctly', () => {
    expect(parseDateRange(new URLSearchParams('startDate=2028-02-01&endDate=2028-03-02')).days).toBe(31);
    expect(refusal('startDate=2028-02-01&endDate=2028-03-03')).toMatchInlineSnapshot(`"400 SVC1005: the range 2028-02-01 to 2028-03-03 covers 32 days; at most 31 are allowed (endDate at the latest 2028-03-02)"`);
  });

  it('refuses 29 February of a common year and accepts it in a leap year', () => {
    expect(refusal('startDate=2026-02-29&endDate=2026-03-01')).toMatchInlineSnapshot(`"400 SVC1005: startDate "2026-02-29" is not a calendar date"`);
    expect(parseDateRange(new URLSearchParams('startDate=2028-02-29&endDate=2028-03-01')).days).toBe(2);
  });

  it('refuses an endDate before startDate', () => {
    expect(refusal('startDate=2026-03-10&endDate=2026-03-09')).toMatchInlineSnapshot(`"400 SVC1005: endDate 2026-03-09 is before startDate 2026-03-10"`);
  });

  it('refuses a missing startDate, endDate, or both', () => {
    expect(refusal('endDate=2026-03-09')).toMatchInlineSnapshot(`"400 SVC1005: startDate is required: give the first day of the range as YYYY-MM-DD"`);
    expect(refusal('startDate=2026-03-09')).toMatchInlineSnapshot(`"400 SVC1005: endDate is required: give the last day of the range as YYYY-MM-DD"`);
    expect(refusal('')).toMatchInlineSnapshot(`"400 SVC1005: startDate is required: give the first day of the range as YYYY-MM-DD; endDate is required: give the last day of the range as YYYY-MM-DD"`);
  });

  it('refuses an empty value as malformed', () => {
    expect(refusal('startDate=&endDate=2026-03-09')).toMatchInlineSnapshot(`"400 SVC1005: startDate must be a date in YYYY-MM-DD format, got """`);
  });

  it('refuses a repeated parameter even when the values agree', () => {
    expect(refusal('startDate=2026-03-01&startDate=2026-03-01&endDate=2026-03-09')).toMatchInlineSnapshot(`"400 SVC1005: startDate was given 2 times: give it once"`);
    expect(refusal('startDate=2026-03-01&endDate=2026-03-09&endDate=2026-03-10&endDate=2026-03-11')).toMatchInlineSnapshot(`"400 SVC1005: endDate was given 3 times: give it once"`);
  });

  it('refuses values not in YYYY-MM-DD format', () => {
    expect(refusal('startDate=2026-1-1&endDate=2026-01-02')).toMatchInlineSnapshot(`"400 SVC1005: startDate must be a date in YYYY-MM-DD format, got "2026-1-1""`);
    expect(refusal('startDate=abc&endDate=2026-01-02')).toMatchInlineSnapshot(`"400 SVC1005: startDate must be a date in YYYY-MM-DD format, got "abc""`);
    expect(refusal('startDate=2026-01-01T00:00:00Z&endDate=2026-01-02')).toMatchInlineSnapshot(`"400 SVC1005: startDate must be a date in YYYY-MM-DD format, got "2026-01-01T00:00:00Z""`);
    expect(refusal('startDate=20260101&endDate=2026-01-02')).toMatchInlineSnapshot(`"400 SVC1005: startDate must be a date in YYYY-MM-DD format, got "20260101""`);
    expect(refusal('startDate=%202026-01-01&endDate=2026-01-02')).toMatchInlineSnapshot(`"400 SVC1005: startDate must be a date in YYYY-MM-DD format, got " 2026-01-01""`);
  });

  it('refuses well-formed values that are not calendar dates', () => {
    expect(refusal('startDate=2026-13-01&endDate=2026-01-02')).toMatchInlineSnapshot(`"400 SVC1005: startDate "2026-13-01" is not a calendar date"`);
    expect(refusal('startDate=2026-01-01&endDate=2026-04-31')).toMatchInlineSnapshot(`"400 SVC1005: endDate "2026-04-31" is not a calendar date"`);
    expect(refusal('startDate=2026-00-01&endDate=2026-01-02')).toMatchInlineSnapshot(`"400 SVC1005: startDate "2026-00-01" is not a calendar date"`);
  });

  it('names both parameters when both are wrong, startDate first', () => {
    expect(refusal('endDate=nope&startDate=2026-02-30')).toMatchInlineSnapshot(`"400 SVC1005: startDate "2026-02-30" is not a calendar date; endDate must be a date in YYYY-MM-DD format, got "nope""`);
  });

  it('echoes at most 24 characters of a very long value', () => {
    const message = refusal(`startDate=${'9'.repeat(100_000)}&endDate=2026-01-02`);
    expect(message.length).toBeLessThan(200);
    expect(message).toMatchInlineSnapshot(`"400 SVC1005: startDate must be a date in YYYY-MM-DD format, got "999999999999999999999999…""`);
  });

  it('reads only its two parameters: any other is the route\'s to refuse (test/unit/server/strict-query.test.ts)', () => {
    expect(parseDateRange(new URLSearchParams('startDate=2026-03-01&endDate=2026-03-02&utm_source=x')).days).toBe(2);
  });

  it('carries a resolution telling the caller what to send', () => {
    try {
      parseDateRange(new URLSearchParams(''));
      expect.unreachable();
    } catch (error) {
      expect((error as HttpError).resolution).toMatchInlineSnapshot(`"Send startDate and endDate as YYYY-MM-DD, endDate not before startDate, at most 31 days apart counting both."`);
    }
  });

  it('describes both parameters in the schema for the API documentation', () => {
    expect(DataQuery.shape.startDate.description).toBe('The first day of the range (UTC), YYYY-MM-DD, included.');
    expect(DataQuery.shape.endDate.description).toBe('The last day of the range (UTC), YYYY-MM-DD, included.');
  });
});
