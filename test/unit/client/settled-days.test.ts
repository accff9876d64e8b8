/** What the client makes of settled days, pure (settled-days.ts). */
import { describe, expect, it } from 'vitest';
import type { DataRecord } from '../../../src/client/data-record.ts';
import { missingDays, parseSettledThrough, restatedDays } from '../../../src/client/settled-days.ts';
import { parseDay } from '../../../src/lib/calendar.ts';

const record = (date: string, txn_count = 1): DataRecord => ({ date, txn_count, impr_count: 2, service_revenue: 3 });
const days = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => record(`2026-03-${String(first + i).padStart(2, '0')}`));

describe('settled days', () => {
  it('reads X-Data-Settled-Through only as a real calendar day', () => {
    expect(parseSettledThrough('2026-03-16')).toBe(parseDay('2026-03-16'));
    expect(parseSettledThrough(' 2026-03-16 ')).toBe(parseDay('2026-03-16'));
    expect(parseSettledThrough('2026-02-30')).toBeUndefined();
    expect(parseSettledThrough('yesterday')).toBeUndefined();
    expect(parseSettledThrough(null)).toBeUndefined();
  });

  it('calls restated the days settled when stored whose figures changed or that are gone, not the later ones', () => {
    const stored = { etag: '"a"', settledThrough: '2026-03-16', records: days(1, 20) };
    const now = days(1, 20).map((r) => (r.date === '2026-03-05' || r.date === '2026-03-18' ? { ...r, txn_count: 9 } : r)).filter((r) => r.date !== '2026-03-10');
    expect(restatedDays(stored, now)).toEqual(['2026-03-05', '2026-03-10']);
    expect(restatedDays(stored, days(1, 20))).toEqual([]);
    // An answer stored without a settled day names none.
    expect(restatedDays({ etag: '"a"', records: days(1, 20) }, now)).toEqual([]);
  });

  it('lists the days of the range without a record', () => {
    expect(missingDays([...days(1, 2), ...days(4, 4)], '2026-03-01', '2026-03-05')).toEqual(['2026-03-03', '2026-03-05']);
    expect(missingDays(days(1, 3), '2026-03-01', '2026-03-03')).toEqual([]);
  });
});
