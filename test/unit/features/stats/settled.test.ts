import { describe, expect, it } from 'vitest';
import { parseDateRange } from '../../../../src/features/stats/date-range.ts';
import { MISSING_DAYS_PATTERN, formatDayRuns, missingDaysOf, settledThrough, settlementHeaders } from '../../../../src/features/stats/settled.ts';
import { parseDay } from '../../../../src/lib/calendar.ts';

const range = (start: string, end: string) => parseDateRange(new URLSearchParams({ startDate: start, endDate: end }));
const days = (...texts: string[]) => texts.map(parseDay);

describe('settled days', () => {
  it('settles a day once the nightly run no longer rewrites it: on day T, through T - 4', () => {
    expect(settledThrough(Date.UTC(2026, 10, 24, 0, 0))).toBe('2026-11-20');
    expect(settledThrough(Date.UTC(2026, 10, 24, 23, 59, 59, 999))).toBe('2026-11-20');
    expect(settledThrough(Date.UTC(2026, 10, 25))).toBe('2026-11-21');
  });

  it('lists the requested days without a record, ascending, whatever order the rows come in', () => {
    expect(missingDaysOf(range('2026-11-18', '2026-11-24'), ['2026-11-20', '2026-11-18', '2026-11-21'])).toEqual(
      days('2026-11-19', '2026-11-22', '2026-11-23', '2026-11-24'),
    );
    expect(missingDaysOf(range('2026-11-18', '2026-11-19'), ['2026-11-18', '2026-11-19'])).toEqual([]);
  });

  it('writes missing days as ISO 8601 intervals of consecutive days, single days alone', () => {
    expect(formatDayRuns(days('2026-11-19', '2026-11-22', '2026-11-23', '2026-11-24'))).toBe('2026-11-19, 2026-11-22/2026-11-24');
    expect(formatDayRuns(days('2026-02-27', '2026-02-28', '2026-03-01'))).toBe('2026-02-27/2026-03-01');
    expect(formatDayRuns([])).toBeUndefined();
  });

  it('keeps the worst case (31 separate days) within the documented pattern and a short header', () => {
    const everyOther = Array.from({ length: 16 }, (_, i) => parseDay('2026-01-01') + 2 * i);
    const text = formatDayRuns(everyOther)!;
    expect(text).toMatch(MISSING_DAYS_PATTERN);
    expect(text.length).toBeLessThan(200);
    expect(formatDayRuns(days('2026-01-01'))).toMatch(MISSING_DAYS_PATTERN);
    expect('2026-01-01,2026-01-03').not.toMatch(MISSING_DAYS_PATTERN);
  });

  it('leaves the missing-days header out when every requested day has a record', () => {
    const now = Date.UTC(2026, 10, 24, 12);
    expect(settlementHeaders(range('2026-11-01', '2026-11-02'), ['2026-11-01', '2026-11-02'], now)).toEqual({ 'x-data-settled-through': '2026-11-20' });
    expect(settlementHeaders(range('2026-11-20', '2026-11-26'), ['2026-11-20', '2026-11-21', '2026-11-22', '2026-11-23'], now)).toEqual({
      'x-data-settled-through': '2026-11-20',
      'x-data-missing-days': '2026-11-24/2026-11-26',
    });
  });
});
