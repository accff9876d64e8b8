/**
 * Pure helpers of the /stats page about its range and what the page says of it, shared by the
 * server render (src/pages/stats.astro) and the browser enhancement (chart.client.ts). The
 * figures and their formats are in stats-figures.ts, the CSV download in stats-csv.ts.
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
