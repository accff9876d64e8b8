/**
 * What a data response says about the finality of its days, in two response headers, pure.
 *
 * `X-Data-Settled-Through: YYYY-MM-DD` is the last *settled* day: no scheduled run of the
 * materializer rewrites it or any day before it any more. The nightly tick (src/app/jobs/schedule.ts)
 * rewrites only the last complete day and the two before it (REMATERIALIZE_DAYS), and the
 * start-up catch-up only fills days that have no row yet; so on UTC day T the days up to T - 4
 * are settled, and a record of such a day, once served, is final as far as the schedule goes.
 * The value depends on the clock alone (`lastSettledDay`, the rule the long Cache-Control uses
 * too), so it costs no database query: it is deliberately *not* capped by the newest
 * materialized day, because a settled day without a row says nothing final about itself and is
 * reported by the second header instead. It moves at 00:00 UTC; response-caching.ts keeps shared
 * copies from outliving that moment, so a cached response never carries yesterday's value.
 * The one exception is an operator's manual backfill of old days (`stats:materialize` after
 * importing old events, README "Operations"): a restatement no client can foresee. Clients learn
 * of it by revalidating what they keep: the response's strong ETag is a digest of the body, so
 * it changes with any record of the range (restatement.ts, docs/restatements.md).
 *
 * `X-Data-Missing-Days` lists the requested days that have no record (not materialized yet:
 * today, the future, the re-materialization window before its first run, days before the first
 * event, a pending backfill), as runs: `2026-11-01/2026-11-03, 2026-11-24` (ISO 8601 interval
 * notation `start/end`, both included, comma-separated). A header rather than a body field: the
 * spec's 200 body is exactly `{status, data}`, and strict clients that refuse unknown members
 * must keep working. It is absent when every requested day has a record. A missing day, settled
 * or not, may appear later: clients ask for it again. It is derived from the rows the response
 * carries, so it always describes the body it travels with, from the cache too, and the
 * materializer's purge (the data path's entries are dropped on commit) refreshes both at once.
 *
 * Both go on 200 and 304 (a 304 updates the headers a client stored, RFC 9111 section 4.3.4).
 * Errors carry neither: they return no days, and the edge answers 429 and some 400s before
 * this feature runs, so an error could not carry them consistently.
 */
import { consecutiveRuns, formatDay, parseDay } from '../../lib/calendar.ts';
import type { DateRange } from './date-range.ts';
import { lastSettledDay } from './response-caching.ts';

/** Names as written on the wire (lower case: HTTP field names are case-insensitive, RFC 9110 section 5.1). */
export const SETTLED_THROUGH_HEADER = 'x-data-settled-through';
export const MISSING_DAYS_HEADER = 'x-data-missing-days';

/** One run `YYYY-MM-DD` or `YYYY-MM-DD/YYYY-MM-DD`, and the list of them. */
const RUN = String.raw`\d{4}-\d{2}-\d{2}(/\d{4}-\d{2}-\d{2})?`;
export const MISSING_DAYS_PATTERN = new RegExp(`^${RUN}(, ${RUN})*$`);

/** The last settled day as of `nowMs`, YYYY-MM-DD. */
export function settledThrough(nowMs: number): string {
  return formatDay(lastSettledDay(nowMs));
}

/**
 * Epoch days of `range` without a record among `present`: distinct YYYY-MM-DD days inside the
 * range, as the handler reads them (primary key, bounded by the range), in any order. A complete
 * range, the common case for settled ones, is recognised by its count without parsing a day.
 */
export function missingDaysOf(range: DateRange, present: readonly string[]): number[] {
  if (present.length === range.days) return [];
  const have = new Set<number>();
  for (const day of present) have.add(parseDay(day));
  const missing: number[] = [];
  for (let day = range.start; day <= range.end; day++) if (!have.has(day)) missing.push(day);
  return missing;
}

/** Epoch days as the header's runs; undefined for none (the header is then left out). */
export function formatDayRuns(days: readonly number[]): string | undefined {
  if (days.length === 0) return undefined;
  return consecutiveRuns(days)
    .map(([first, last]) => (first === last ? formatDay(first) : `${formatDay(first)}/${formatDay(last)}`))
    .join(', ');
}

/** The two headers of a response answering `range` with the records of `present` days. */
export function settlementHeaders(range: DateRange, present: readonly string[], nowMs: number): Record<string, string> {
  const missing = formatDayRuns(missingDaysOf(range, present));
  return { [SETTLED_THROUGH_HEADER]: settledThrough(nowMs), ...(missing === undefined ? {} : { [MISSING_DAYS_HEADER]: missing }) };
}
