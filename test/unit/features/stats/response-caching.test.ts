import { describe, expect, it } from 'vitest';
import { parseDateRange } from '../../../../src/features/stats/date-range.ts';
import { cacheControlFor, lastSettledDay } from '../../../../src/features/stats/response-caching.ts';
import { parseDay } from '../../../../src/lib/calendar.ts';

const range = (start: string, end: string) => parseDateRange(new URLSearchParams({ startDate: start, endDate: end }));
/** 2026-03-20, any time of day. */
const NOW = Date.UTC(2026, 2, 20, 0, 3);

describe('data response caching', () => {
  it('counts a day as settled once it is older than the three re-materialized days', () => {
    expect(lastSettledDay(NOW)).toBe(parseDay('2026-03-16'));
    expect(lastSettledDay(Date.UTC(2026, 2, 20, 23, 59, 59, 999))).toBe(parseDay('2026-03-16'));
    expect(lastSettledDay(Date.UTC(2026, 2, 21))).toBe(parseDay('2026-03-17'));
  });

  it('caches a fully materialized range of settled days for a day, in shared caches until 00:00 UTC', () => {
    // NOW is 00:03: 23 h 57 min to the next midnight, when X-Data-Settled-Through moves.
    expect(cacheControlFor(range('2026-03-01', '2026-03-16'), 16, NOW)).toBe('public, max-age=86400, s-maxage=86220');
    expect(cacheControlFor(range('2026-03-01', '2026-03-16'), 16, Date.UTC(2026, 2, 20))).toBe('public, max-age=86400');
  });

  it('never lets a shared copy outlive the UTC day whose settled day it names', () => {
    const lastSeconds = Date.UTC(2026, 2, 20, 23, 59, 30);
    expect(cacheControlFor(range('2026-03-01', '2026-03-16'), 16, lastSeconds)).toBe('public, max-age=86400, s-maxage=30');
    expect(cacheControlFor(range('2026-03-19', '2026-03-25'), 1, lastSeconds)).toBe('public, max-age=30');
    expect(cacheControlFor(range('2026-03-19', '2026-03-25'), 1, Date.UTC(2026, 2, 20, 23, 59, 59, 900))).toBe('public, max-age=1');
  });

  it('caches for a minute when the range reaches into the re-materialization window', () => {
    expect(cacheControlFor(range('2026-03-01', '2026-03-17'), 17, NOW)).toBe('public, max-age=60');
    expect(cacheControlFor(range('2026-03-19', '2026-03-25'), 1, NOW)).toBe('public, max-age=60');
  });

  it('caches for a minute when a settled day is not materialized yet', () => {
    expect(cacheControlFor(range('2026-03-01', '2026-03-16'), 15, NOW)).toBe('public, max-age=60');
  });
});
