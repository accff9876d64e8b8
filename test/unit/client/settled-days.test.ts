/** The client's settled-day cache policy, pure (settled-days.ts). */
import { describe, expect, it } from 'vitest';
import type { DataRecord } from '../../../src/client/data-record.ts';
import { monthWindows } from '../../../src/client/date-windows.ts';
import { cachedRun, missingDays, parseSettledThrough, restOf, settledRun } from '../../../src/client/settled-days.ts';
import { parseDay } from '../../../src/lib/calendar.ts';

const MARCH = monthWindows(parseDay('2026-03-01'), parseDay('2026-03-31'))[0]!;
const record = (date: string): DataRecord => ({ date, txn_count: 1, impr_count: 2, service_revenue: 3 });
const days = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => record(`2026-03-${String(first + i).padStart(2, '0')}`));

describe('settled-day cache policy', () => {
  it('reads X-Data-Settled-Through only as a real calendar day', () => {
    expect(parseSettledThrough('2026-03-16')).toBe(parseDay('2026-03-16'));
    expect(parseSettledThrough(' 2026-03-16 ')).toBe(parseDay('2026-03-16'));
    expect(parseSettledThrough('2026-02-30')).toBeUndefined();
    expect(parseSettledThrough('yesterday')).toBeUndefined();
    expect(parseSettledThrough(null)).toBeUndefined();
  });

  it('keeps the run from the window’s first day up to the settled day, no further', () => {
    expect(settledRun(days(1, 31), MARCH, parseDay('2026-03-16'))).toEqual(days(1, 16));
    expect(settledRun(days(1, 31), MARCH, parseDay('2026-04-30'))).toEqual(days(1, 31));
    expect(settledRun(days(1, 31), MARCH, parseDay('2026-02-28'))).toEqual([]);
  });

  it('stops the run before a day without a record, which may still appear', () => {
    const gap = [...days(1, 4), ...days(6, 31)];
    expect(settledRun(gap, MARCH, parseDay('2026-03-16'))).toEqual(days(1, 4));
    expect(settledRun(days(2, 31), MARCH, parseDay('2026-03-16'))).toEqual([]);
  });

  it('reads a cache entry only when it is such a run, and asks for the days after it', () => {
    expect(cachedRun(days(1, 16), MARCH)).toEqual(days(1, 16));
    expect(cachedRun(days(2, 16), MARCH)).toBeUndefined();
    expect(cachedRun([...days(1, 4), ...days(6, 9)], MARCH)).toBeUndefined();
    expect(cachedRun([], MARCH)).toBeUndefined();
    expect(cachedRun('not records', MARCH)).toBeUndefined();
    expect(restOf(MARCH, 16)).toEqual({ startDate: '2026-03-17', endDate: '2026-03-31', start: parseDay('2026-03-17'), end: MARCH.end, days: 15 });
  });

  it('lists the days of the range without a record', () => {
    expect(missingDays([...days(1, 2), ...days(4, 4)], '2026-03-01', '2026-03-05')).toEqual(['2026-03-03', '2026-03-05']);
    expect(missingDays(days(1, 3), '2026-03-01', '2026-03-03')).toEqual([]);
  });
});
