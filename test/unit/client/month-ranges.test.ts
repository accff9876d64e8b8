import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { monthRanges, type MonthRange } from '../../../src/client/month-ranges.ts';
import { settledByClock } from '../../../src/client/settled-days.ts';
import { parseDay } from '../../../src/lib/calendar.ts';
import { lastSettledDay } from '../../../src/features/stats/response-caching.ts';

const day = parseDay;
const spans = (months: MonthRange[]) => months.map((w) => `${w.startDate}..${w.endDate}`);

describe('month ranges', () => {
  it('cuts a calendar year into its twelve months', () => {
    const months = monthRanges(day('2025-01-01'), day('2025-12-31'));
    expect(months).toHaveLength(12);
    expect(spans(months).slice(0, 3)).toEqual(['2025-01-01..2025-01-31', '2025-02-01..2025-02-28', '2025-03-01..2025-03-31']);
    expect(months.map((w) => w.days).reduce((a, b) => a + b)).toBe(365);
  });

  it('keeps the partial months at both ends of a range', () => {
    expect(spans(monthRanges(day('2024-01-15'), day('2024-03-10')))).toEqual([
      '2024-01-15..2024-01-31',
      '2024-02-01..2024-02-29',
      '2024-03-01..2024-03-10',
    ]);
    expect(spans(monthRanges(day('2026-05-07'), day('2026-05-07')))).toEqual(['2026-05-07..2026-05-07']);
  });

  it('gives overlapping ranges the same whole-month months, so cached months are reused', () => {
    const a = spans(monthRanges(day('2025-01-20'), day('2025-06-30')));
    const b = spans(monthRanges(day('2025-02-03'), day('2025-07-15')));
    expect(a.filter((w) => b.includes(w))).toEqual(['2025-03-01..2025-03-31', '2025-04-01..2025-04-30', '2025-05-01..2025-05-31', '2025-06-01..2025-06-30']);
  });

  it('covers any range exactly, in order, with months of at most 31 days inside one month', () => {
    const epochDay = fc.integer({ min: day('1999-01-01'), max: day('2101-12-31') });
    fc.assert(
      fc.property(epochDay, fc.integer({ min: 0, max: 800 }), (from, length) => {
        const to = from + length;
        const months = monthRanges(from, to);
        expect(months[0]!.start).toBe(from);
        expect(months.at(-1)!.end).toBe(to);
        months.forEach((w, i) => {
          expect(w.days).toBe(w.end - w.start + 1);
          expect(w.days).toBeGreaterThanOrEqual(1);
          expect(w.days).toBeLessThanOrEqual(31);
          expect(w.startDate.slice(0, 7)).toBe(w.endDate.slice(0, 7));
          if (i > 0) expect(w.start).toBe(months[i - 1]!.end + 1);
        });
      }),
    );
  });
});

describe('settled days without the server’s header', () => {
  it('counts a day as settled when it is at least four days before today (UTC)', () => {
    // 2026-03-20 12:00 UTC: the server's last settled day is 03-16.
    expect(settledByClock(Date.UTC(2026, 2, 20, 12))).toBe(day('2026-03-16'));
  });

  it('uses the same boundary as the server (its Cache-Control and X-Data-Settled-Through)', () => {
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2100, 0, 1) }), (nowMs) => {
        expect(settledByClock(nowMs)).toBe(lastSettledDay(nowMs));
      }),
    );
  });
});
