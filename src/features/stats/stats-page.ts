/**
 * Pure helpers of the /stats page, shared by the server render (src/pages/stats.astro) and the
 * browser enhancement (chart.client.ts), so both show the same totals, labels and CSV.
 *
 * Client-safe on purpose: no zod, no node: imports, nothing at import time. The date-range
 * rules themselves live in date-range.ts (the API's validator), which only the server imports.
 */
import { PATHS } from '../../lib/paths.ts';
import { parseRetryAfter } from '../../lib/retry-after.ts';
import { checkDay, dayOfInstant, formatDay } from '../../lib/calendar.ts';
import type { DataRecord } from './data-record.ts';

/** A range as the page and the API name it: first and last UTC day, YYYY-MM-DD, both included. */
export interface DayRange {
  /** First day, YYYY-MM-DD. */
  startDate: string;
  /** Last day, YYYY-MM-DD. */
  endDate: string;
}

/**
 * The range shown when none is asked for: the last `days` *complete* UTC days, i.e. ending
 * yesterday. Today is never materialized (the nightly job writes a day once it is over), so
 * ending today would only add an empty day. The server passes the API's MAX_RANGE_DAYS
 * (date-range.ts, which this client-safe module does not import: it brings zod).
 */
export function defaultRange(nowMs: number, days: number): DayRange {
  const yesterday = dayOfInstant(nowMs) - 1;
  return { startDate: formatDay(yesterday - days + 1), endDate: formatDay(yesterday) };
}

/** Sums of a set of daily records. Revenue is summed in integer cents, so it is exact. */
export interface Totals {
  /** Days that have a record (materialized days). */
  days: number;
  /** Transactions over those days. */
  txnCount: number;
  /** Impressions over those days. */
  imprCount: number;
  /** Revenue over those days in integer minor units (cents). */
  revenueCents: number;
}

/**
 * Amount in currency units (at most two decimals, as the API guarantees) to integer cents.
 * `Math.round(x * 100)` recovers the integer exactly: the API's numbers have at most 15
 * significant digits (money.ts), far inside the range where the product's rounding error is
 * below half a cent.
 */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

export function totalsOf(records: readonly DataRecord[]): Totals {
  let txnCount = 0;
  let imprCount = 0;
  let revenueCents = 0;
  for (const record of records) {
    txnCount += record.txn_count;
    imprCount += record.impr_count;
    revenueCents += toCents(record.service_revenue);
  }
  return { days: records.length, txnCount, imprCount, revenueCents };
}

/** Integer cents as a plain decimal with exactly two places and no grouping: 123456 -> "1234.56". */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

// en-GB to match the site's dates; grouping with commas and a point for decimals, as en-US.
const COUNT_FORMAT = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });
const AMOUNT_FORMAT = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const COMPACT_FORMAT = new Intl.NumberFormat('en-GB', { notation: 'compact', maximumFractionDigits: 1 });

/** A count for people: 1234567 -> "1,234,567". */
export function formatCount(value: number): string {
  return COUNT_FORMAT.format(value);
}

/**
 * Revenue for people, two decimals and no currency symbol: the interface does not name the
 * currency (docs/interface.md section 2), so the page labels it neutrally ("Revenue") and explains why.
 * Formatted from the decimal string, so no binary rounding can move the last cent.
 */
export function formatRevenueCents(cents: number): string {
  // Intl.NumberFormat formats decimal strings exactly (ECMA-402, Intl.NumberFormat v3).
  return AMOUNT_FORMAT.format(centsToDecimal(cents) as Intl.StringNumericLiteral);
}

/** Short axis label: 1200 -> "1.2K". */
export function formatCompact(value: number): string {
  return COMPACT_FORMAT.format(value);
}

/** Every day of a valid range, YYYY-MM-DD, ascending (for chart x values, absent days included). */
export function daysOf(range: DayRange): string[] {
  const start = checkDay(range.startDate);
  const end = checkDay(range.endDate);
  if (!start.ok || !end.ok) return [];
  const days: string[] = [];
  for (let day = start.epochDay; day <= end.epochDay; day++) days.push(formatDay(day));
  return days;
}

/** The public API URL for a range (what the page fetches, and the JSON link for readers without JavaScript). */
export function dataApiUrl(range: DayRange): string {
  return `${PATHS.data}?${new URLSearchParams({ startDate: range.startDate, endDate: range.endDate }).toString()}`;
}

/** Query string of the page for a range (history.replaceState, and links). */
export function pageQuery(range: DayRange): string {
  return `?${new URLSearchParams({ startDate: range.startDate, endDate: range.endDate }).toString()}`;
}

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

/** Number of days of a valid range, both ends included (0 when it is not a valid range). */
export function rangeLength(range: DayRange): number {
  return daysOf(range).length;
}

/** The sentence under the form that says what is shown (a polite live region in the browser). */
export function summaryText(range: DayRange, records: readonly DataRecord[]): string {
  const length = rangeLength(range);
  const span = `${range.startDate} to ${range.endDate} (UTC, ${length} ${length === 1 ? 'day' : 'days'})`;
  if (records.length === 0) return `Showing ${span}: no day in this range has figures yet.`;
  if (records.length === length) return `Showing ${span}: every day has figures.`;
  return `Showing ${span}: ${records.length} of ${length} days have figures; the others are not published yet.`;
}

/** Which form fields an SVC1005 message is about, so they can be marked aria-invalid. */
export function invalidFields(message: string): Array<'startDate' | 'endDate'> {
  const fields: Array<'startDate' | 'endDate'> = [];
  if (/\bstartDate\b/.test(message)) fields.push('startDate');
  if (/\bendDate\b/.test(message)) fields.push('endDate');
  // A message about the span names the range, not a field: both ends are candidates.
  return fields.length > 0 ? fields : ['startDate', 'endDate'];
}

/**
 * What to tell someone who got 429 (SVC1010). Retry-After is delay-seconds or an HTTP-date
 * (RFC 9110 section 10.2.3); both are turned into whole seconds.
 */
export function waitMessage(retryAfter: string | null, nowMs: number): string {
  const seconds = parseRetryAfter(retryAfter, nowMs);
  if (seconds === undefined) return 'Too many requests for the statistics just now. Please wait a little and try again.';
  if (seconds <= 1) return 'Too many requests for the statistics just now. Please try again in a moment.';
  const wait = seconds < 120 ? `${seconds} seconds` : `${Math.ceil(seconds / 60)} minutes`;
  return `Too many requests for the statistics just now. Please wait ${wait} and try again.`;
}
