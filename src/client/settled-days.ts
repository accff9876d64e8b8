/**
 * What the server says about the finality of days, pure. It names its last settled day in
 * `X-Data-Settled-Through` on every 200 and 304 (README "For integrators"): no scheduled run
 * rewrites that day or an earlier one. An operator still can (a late import, a correction,
 * docs/restatements.md); the client then finds the month's ETag changed when it revalidates
 * (month-cache.ts), and reports the settled days whose figures changed as restated. A requested
 * day without a record (the server lists it in `X-Data-Missing-Days`) may still appear.
 */
import { checkDay, dayOfInstant, formatDay, parseDay } from '../lib/calendar.ts';
import type { DataRecord } from './data-record.ts';
import { SETTLED_AFTER_DAYS } from './month-ranges.ts';
import type { StoredAnswer } from './month-cache.ts';

/** The header's day as an epoch day; undefined when absent or not a YYYY-MM-DD calendar date. */
export function parseSettledThrough(value: string | null): number | undefined {
  if (value === null) return undefined;
  const day = checkDay(value.trim());
  return day.ok ? day.epochDay : undefined;
}

/**
 * The settled day of a server that does not send the header (an older version): the same rule
 * it follows, counted on the client's clock (today UTC minus SETTLED_AFTER_DAYS).
 */
export function settledByClock(nowMs: number): number {
  return dayOfInstant(nowMs) - SETTLED_AFTER_DAYS;
}

function sameFigures(a: DataRecord, b: DataRecord | undefined): boolean {
  return b !== undefined && a.txn_count === b.txn_count && a.impr_count === b.impr_count && a.service_revenue === b.service_revenue;
}

/**
 * Days of a stored answer that were settled when it was last confirmed and whose record differs
 * in (or is gone from) the month's new `records`: restated since, ascending. A change to a day
 * that was not settled yet is an ordinary update (the nightly run), not a restatement.
 */
export function restatedDays(stored: StoredAnswer, records: readonly DataRecord[]): string[] {
  const settled = stored.settledThrough;
  if (settled === undefined) return [];
  const current = new Map(records.map((record) => [record.date, record]));
  return stored.records.filter((old) => old.date <= settled && !sameFigures(old, current.get(old.date))).map((old) => old.date);
}

/** Days from `from` to `to` (YYYY-MM-DD, both included) without a record among `records` (ascending). */
export function missingDays(records: readonly DataRecord[], from: string, to: string): string[] {
  const have = new Set(records.map((record) => record.date));
  const missing: string[] = [];
  for (let day = parseDay(from); day <= parseDay(to); day++) {
    const text = formatDay(day);
    if (!have.has(text)) missing.push(text);
  }
  return missing;
}
