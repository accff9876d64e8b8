/**
 * The /stats page's CSV download, pure and client-safe. Hand-written rather than csv-stringify
 * (which the contact export uses): every field is a date or a number, so nothing needs quoting,
 * and the browser bundle stays without a CSV library.
 */
import type { DataRecord } from './data-record.ts';
import type { DayRange } from './stats-page.ts';
import { centsToDecimal, toCents } from './stats-figures.ts';

/** CSV columns: the API's field names, so the file and the JSON read alike. */
export const CSV_HEADER = ['date', 'txn_count', 'impr_count', 'service_revenue'] as const;

/**
 * Records as RFC 4180 CSV: a header line, one line per day, CRLF line ends. Every field is a
 * date or a number, so none needs quoting and none can start a spreadsheet formula. Revenue
 * keeps exactly two decimals ("12.30"), which spreadsheets read as the number it is.
 */
export function toCsv(records: readonly DataRecord[]): string {
  const lines = [CSV_HEADER.join(',')];
  for (const record of records) {
    lines.push([record.date, String(record.txn_count), String(record.impr_count), centsToDecimal(toCents(record.service_revenue))].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Download name of a range's CSV: `stats-2026-01-01-to-2026-01-31.csv`. */
export function csvFileName(range: DayRange): string {
  return `stats-${range.startDate}-to-${range.endDate}.csv`;
}
