/**
 * Which days the client may keep forever, pure: the server names its last settled day in
 * `X-Data-Settled-Through` on every 200 and 304 (README "For integrators"): the record of a day
 * up to it never changes any more. A window's cache entry is the run of its records from its first
 * day up to that day without a gap; a later request asks only for the days after the run. A
 * requested day without a record (the server lists it in `X-Data-Missing-Days`) may still appear
 * (a pending backfill), so a run stops before it and the day is asked for again next time.
 */
import { checkDay, dayOfInstant, formatDay, parseDay } from '../lib/calendar.ts';
import { recordsOf, type DataRecord } from './data-record.ts';
import { SETTLED_AFTER_DAYS, type DateWindow } from './date-windows.ts';

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

/** The first `count` records when they are exactly the window's first `count` days, in order. */
function isRunFromStart(records: readonly DataRecord[], window: DateWindow): boolean {
  return records.every((record, index) => record.date === formatDay(window.start + index));
}

/**
 * A cache entry as the run of records it holds from the window's first day, or undefined when it
 * is not one (an edited file, an older format): then it is a miss and the window is asked again.
 */
export function cachedRun(value: unknown, window: DateWindow): DataRecord[] | undefined {
  const records = recordsOf(value, window, true);
  if (typeof records === 'string' || records.length === 0 || !isRunFromStart(records, window)) return undefined;
  return records;
}

/**
 * What may be kept of a window's records (ascending, possibly with gaps): those from its first
 * day, without a gap, up to the settled day. Empty when the first day is missing or unsettled.
 */
export function settledRun(records: readonly DataRecord[], window: DateWindow, settledThrough: number): DataRecord[] {
  const last = Math.min(window.end, settledThrough);
  const run: DataRecord[] = [];
  for (const record of records) {
    if (window.start + run.length > last || record.date !== formatDay(window.start + run.length)) break;
    run.push(record);
  }
  return run;
}

/** The window of the days after a cached run of `cached` days. */
export function restOf(window: DateWindow, cached: number): DateWindow {
  const start = window.start + cached;
  return { startDate: formatDay(start), endDate: window.endDate, start, end: window.end, days: window.end - start + 1 };
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
