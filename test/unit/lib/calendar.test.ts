import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkDay, consecutiveRuns, dayOfInstant, epochDayOf, formatDate, formatDay, nextUtcMidnight, parseDay, startOfDayMs, weekdayName, weekdayOf } from '../../../src/lib/calendar.ts';

describe('calendar days', () => {
  it('accepts 29 February only in leap years', () => {
    expect(checkDay('2026-02-29')).toEqual({ ok: false, problem: 'calendar' });
    expect(checkDay('2028-02-29').ok).toBe(true);
    expect(checkDay('2100-02-29').ok).toBe(false); // divisible by 100, not by 400
    expect(checkDay('2000-02-29').ok).toBe(true); // divisible by 400
  });

  it('tells a malformed value from a well-formed day that does not exist', () => {
    expect(checkDay('2026-1-1')).toEqual({ ok: false, problem: 'format' });
    expect(checkDay('2026-01-01T00:00:00Z')).toEqual({ ok: false, problem: 'format' });
    expect(checkDay(' 2026-01-01')).toEqual({ ok: false, problem: 'format' });
    expect(checkDay('２０２６-01-01')).toEqual({ ok: false, problem: 'format' });
    expect(checkDay('2026-13-01')).toEqual({ ok: false, problem: 'calendar' });
    expect(checkDay('2026-04-31')).toEqual({ ok: false, problem: 'calendar' });
    expect(checkDay('2026-00-10')).toEqual({ ok: false, problem: 'calendar' });
    expect(checkDay('2026-01-00')).toEqual({ ok: false, problem: 'calendar' });
  });

  it('numbers days from 1970-01-01 like Date.UTC does', () => {
    expect(parseDay('1970-01-01')).toBe(0);
    expect(parseDay('2026-03-01')).toBe(Date.UTC(2026, 2, 1) / 86_400_000);
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31) }), (ms) => {
        const date = new Date(ms);
        const epochDay = epochDayOf(date.getUTCFullYear(), date.getUTCMonth() + 1, date.getUTCDate());
        expect(epochDay).toBe(dayOfInstant(ms));
        expect(formatDay(epochDay)).toBe(date.toISOString().slice(0, 10));
        expect(parseDay(formatDay(epochDay))).toBe(epochDay);
      }),
    );
  });

  it('puts the last millisecond of a day on that day and the next millisecond on the next', () => {
    const day = parseDay('2026-03-01');
    expect(dayOfInstant(startOfDayMs(day + 1) - 1)).toBe(day);
    expect(dayOfInstant(startOfDayMs(day + 1))).toBe(day + 1);
    expect(dayOfInstant(-1)).toBe(-1);
  });

  it('groups ascending days into runs of consecutive days', () => {
    expect(consecutiveRuns([1, 2, 3, 5, 7, 8])).toEqual([
      [1, 3],
      [5, 5],
      [7, 8],
    ]);
    expect(consecutiveRuns([])).toEqual([]);
  });
});

describe('calendar helpers shared by the pages, the jobs and the integrator client', () => {
  it('puts the quota reset at the next 00:00 UTC', () => {
    expect(new Date(nextUtcMidnight(Date.UTC(2026, 2, 20, 12, 30))).toISOString()).toBe('2026-03-21T00:00:00.000Z');
    expect(new Date(nextUtcMidnight(Date.UTC(2026, 2, 20))).toISOString()).toBe('2026-03-21T00:00:00.000Z');
    expect(new Date(nextUtcMidnight(Date.UTC(2026, 11, 31, 23, 59, 59, 999))).toISOString()).toBe('2027-01-01T00:00:00.000Z');
  });

  it('numbers weekdays from Sunday and names them, before 1970 too', () => {
    expect(weekdayOf(0)).toBe(4);
    expect(weekdayOf(parseDay('2026-03-01'))).toBe(0);
    expect(weekdayOf(parseDay('1969-12-31'))).toBe(3);
    expect(weekdayName('1970-01-01')).toBe('Thu');
    expect(weekdayName('2026-03-20')).toBe('Fri');
    expect(weekdayName('2026-02-30')).toBe('');
  });

  it('writes dates and date-times as a UTC day in English words', () => {
    expect(formatDate('2025-03-12')).toBe('12 March 2025');
    expect(formatDate('2026-01-05T23:30:00-05:00')).toBe('6 January 2026');
  });
});
