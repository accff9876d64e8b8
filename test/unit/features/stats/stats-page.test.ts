import { describe, expect, it } from 'vitest';
import { parseDateRange, MAX_RANGE_DAYS } from '../../../../src/features/stats/date-range.ts';
import type { DataRecord } from '../../../../src/features/stats/data-record.ts';
import { weekdayName } from '../../../../src/lib/calendar.ts';
import { csvFileName, toCsv } from '../../../../src/features/stats/stats-csv.ts';
import { centsToDecimal, formatCount, formatRevenueCents, totalsOf } from '../../../../src/features/stats/stats-figures.ts';
import { dataApiUrl, daysOf, defaultRange, invalidFields, pageQuery, summaryText, waitMessage } from '../../../../src/features/stats/stats-page.ts';

const record = (date: string, txn_count: number, impr_count: number, service_revenue: number): DataRecord => ({ date, txn_count, impr_count, service_revenue });

/** The API's SVC1005 message for a query (what the page shows). */
function apiMessage(query: Record<string, string>): string {
  try {
    parseDateRange(new URLSearchParams(query));
  } catch (error) {
    return (error as { detail: string }).detail;
  }
  throw new Error('expected the range to be invalid');
}

describe('the default range of /stats', () => {
  it('is the last 31 complete UTC days, ending yesterday', () => {
    expect(defaultRange(Date.UTC(2026, 2, 20, 12), MAX_RANGE_DAYS)).toEqual({ startDate: '2026-02-17', endDate: '2026-03-19' });
  });

  it('changes at UTC midnight, not at local midnight', () => {
    expect(defaultRange(Date.UTC(2026, 2, 20, 23, 59, 59, 999), 31).endDate).toBe('2026-03-19');
    expect(defaultRange(Date.UTC(2026, 2, 21, 0, 0, 0, 0), 31).endDate).toBe('2026-03-20');
  });

  it('crosses a leap day correctly', () => {
    expect(defaultRange(Date.UTC(2028, 2, 2), 31)).toEqual({ startDate: '2028-01-31', endDate: '2028-03-01' });
  });

  it('is a range the data API accepts', () => {
    const range = defaultRange(Date.UTC(2026, 0, 1), MAX_RANGE_DAYS);
    expect(parseDateRange(new URLSearchParams({ ...range })).days).toBe(MAX_RANGE_DAYS);
  });
});

describe('totals', () => {
  it('sums counts and revenue, revenue exactly in cents', () => {
    const totals = totalsOf([record('2026-01-01', 3, 100, 0.1), record('2026-01-02', 4, 200, 0.2), record('2026-01-03', 0, 0, 0)]);
    expect(totals).toEqual({ days: 3, txnCount: 7, imprCount: 300, revenueCents: 30 });
    expect(0.1 + 0.2).not.toBe(0.3); // what summing the amounts as floats would have given
  });

  it('stays exact for large amounts over a full range', () => {
    const records = Array.from({ length: 31 }, (_, i) => record(`2026-01-${String(i + 1).padStart(2, '0')}`, 1, 1, 12345678901.23));
    expect(totalsOf(records).revenueCents).toBe(31 * 1234567890123);
  });

  it('is zero for no records', () => {
    expect(totalsOf([])).toEqual({ days: 0, txnCount: 0, imprCount: 0, revenueCents: 0 });
  });
});

describe('number formatting', () => {
  it('groups counts with commas', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatCount(0)).toBe('0');
  });

  it('shows revenue with exactly two decimals and no currency symbol', () => {
    expect(formatRevenueCents(123456)).toBe('1,234.56');
    expect(formatRevenueCents(30)).toBe('0.30');
    expect(formatRevenueCents(0)).toBe('0.00');
    expect(formatRevenueCents(99999999999999)).toBe('999,999,999,999.99');
  });

  it('writes cents as a plain decimal for the CSV', () => {
    expect(centsToDecimal(123456)).toBe('1234.56');
    expect(centsToDecimal(5)).toBe('0.05');
    expect(centsToDecimal(-250)).toBe('-2.50');
  });
});

describe('CSV download', () => {
  it('has a header of the API field names, one CRLF line per day and two-decimal revenue', () => {
    const csv = toCsv([record('2026-01-01', 12, 3400, 56.7), record('2026-01-02', 0, 0, 0), record('2026-01-03', 1, 2, 0.3)]);
    expect(csv).toMatchInlineSnapshot(`
      "date,txn_count,impr_count,service_revenue
      2026-01-01,12,3400,56.70
      2026-01-02,0,0,0.00
      2026-01-03,1,2,0.30
      "
    `);
    expect(csv.split('\r\n')).toHaveLength(5);
    expect(csv).not.toMatch(/[^\r]\n/);
  });

  it('is just the header for an empty range', () => {
    expect(toCsv([])).toBe('date,txn_count,impr_count,service_revenue\r\n');
  });

  it('names the file after the range', () => {
    expect(csvFileName({ startDate: '2026-01-01', endDate: '2026-01-31' })).toBe('stats-2026-01-01-to-2026-01-31.csv');
  });
});

describe('range helpers', () => {
  it('lists every day of a range, across a month end', () => {
    expect(daysOf({ startDate: '2026-02-27', endDate: '2026-03-02' })).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  });

  it('lists nothing for an invalid range', () => {
    expect(daysOf({ startDate: '2026-02-29', endDate: '2026-03-02' })).toEqual([]);
  });

  it('links the public data API and the page with the same parameters', () => {
    const range = { startDate: '2026-01-01', endDate: '2026-01-31' };
    expect(dataApiUrl(range)).toBe('/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-31');
    expect(pageQuery(range)).toBe('?startDate=2026-01-01&endDate=2026-01-31');
  });

  it('names weekdays of UTC days', () => {
    expect(weekdayName('1970-01-01')).toBe('Thu');
    expect(weekdayName('2026-03-20')).toBe('Fri');
    expect(weekdayName('2026-02-30')).toBe('');
  });
});

describe('the summary line', () => {
  const range = { startDate: '2026-03-01', endDate: '2026-03-03' };

  it('says when every day has figures', () => {
    expect(summaryText(range, [record('2026-03-01', 1, 1, 1), record('2026-03-02', 1, 1, 1), record('2026-03-03', 1, 1, 1)])).toBe(
      'Showing 2026-03-01 to 2026-03-03 (UTC, 3 days): every day has figures.',
    );
  });

  it('says how many days are not published yet', () => {
    expect(summaryText(range, [record('2026-03-01', 1, 1, 1)])).toBe(
      'Showing 2026-03-01 to 2026-03-03 (UTC, 3 days): 1 of 3 days have figures; the others are not published yet.',
    );
  });

  it('says when no day has figures', () => {
    expect(summaryText({ startDate: '2026-03-01', endDate: '2026-03-01' }, [])).toBe('Showing 2026-03-01 to 2026-03-01 (UTC, 1 day): no day in this range has figures yet.');
  });
});

describe('which fields an API message is about', () => {
  it('marks the field a message names', () => {
    expect(invalidFields(apiMessage({ startDate: '2026-02-29', endDate: '2026-03-02' }))).toEqual(['startDate']);
    expect(invalidFields(apiMessage({ startDate: '2026-03-01' }))).toEqual(['endDate']);
  });

  it('marks both ends when they are in the wrong order', () => {
    expect(invalidFields(apiMessage({ startDate: '2026-03-02', endDate: '2026-03-01' }))).toEqual(['startDate', 'endDate']);
  });

  it('marks the end of a range that is too long, as the message suggests the latest endDate', () => {
    const message = apiMessage({ startDate: '2026-01-01', endDate: '2026-02-01' });
    expect(message).toContain('endDate at the latest 2026-01-31');
    expect(invalidFields(message)).toEqual(['endDate']);
  });

  it('marks both fields when a message names neither', () => {
    expect(invalidFields('the range is not valid')).toEqual(['startDate', 'endDate']);
  });
});

describe('the 429 message', () => {
  const now = Date.UTC(2026, 2, 20, 12);

  it('tells how long to wait from delay-seconds', () => {
    expect(waitMessage('30', now)).toBe('Too many requests for the statistics just now. Please wait 30 seconds and try again.');
    expect(waitMessage('600', now)).toBe('Too many requests for the statistics just now. Please wait 10 minutes and try again.');
  });

  it('understands an HTTP-date', () => {
    expect(waitMessage(new Date(now + 45_000).toUTCString(), now)).toBe('Too many requests for the statistics just now. Please wait 45 seconds and try again.');
  });

  it('stays friendly without a usable Retry-After', () => {
    expect(waitMessage(null, now)).toBe('Too many requests for the statistics just now. Please wait a little and try again.');
    expect(waitMessage('soon', now)).toBe('Too many requests for the statistics just now. Please wait a little and try again.');
    expect(waitMessage('0', now)).toBe('Too many requests for the statistics just now. Please try again in a moment.');
  });
});
