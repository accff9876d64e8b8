/**
 * How long a data response may be reused (RFC 9111 caching). Its validator (ETag,
 * If-None-Match) is src/lib/http-validators.ts, the one the edge uses too.
 *
 * A day is *settled* once no scheduled run will rewrite it: the nightly tick materializes
 * yesterday and re-materializes the two days before it (late events), so on UTC day T the days
 * up to T - 4 are final. A range made only of settled, materialized days may be cached for a day;
 * anything else (today, recent days, days not materialized yet) for a minute, which bounds how
 * long a client can see a day that has since changed. Manual backfills of old days are the
 * exception: they purge this instance's response cache, other caches catch up within max-age.
 */
import { dayOfInstant, nextUtcMidnight } from '../../lib/calendar.ts';
import type { DateRange } from './date-range.ts';

/** The nightly tick rewrites the last complete day and the two before it. */
export const REMATERIALIZE_DAYS = 3;

/** max-age of a response that can still change (seconds). */
export const SHORT_MAX_AGE_S = 60;
/** max-age of a response about settled days only (seconds). */
export const LONG_MAX_AGE_S = 86_400;

/** Latest epoch day that no scheduled run rewrites any more, as of `nowMs`. */
export function lastSettledDay(nowMs: number): number {
  return dayOfInstant(nowMs) - REMATERIALIZE_DAYS - 1;
}

/**
 * `Cache-Control` for a range answered with `materializedDays` records.
 *
 * A response carries X-Data-Settled-Through (settled.ts), which moves at 00:00 UTC, and shared
 * caches (the edge's response cache, a CDN) store it with the body. So no shared copy may stay
 * fresh past the next UTC midnight: the short max-age is cut there, and the long one gets an
 * `s-maxage` that ends there (RFC 9111 section 5.2.2.10: shared caches only). A browser may keep
 * a settled range for the full day; the settled value it then shows is at most a day behind,
 * which only ever understates what is final.
 */
export function cacheControlFor(range: DateRange, materializedDays: number, nowMs: number): string {
  const settled = range.end <= lastSettledDay(nowMs) && materializedDays === range.days;
  const untilMidnightS = Math.max(1, Math.ceil((nextUtcMidnight(nowMs) - nowMs) / 1000));
  if (!settled) return `public, max-age=${Math.min(SHORT_MAX_AGE_S, untilMidnightS)}`;
  return `public, max-age=${LONG_MAX_AGE_S}${untilMidnightS < LONG_MAX_AGE_S ? `, s-maxage=${untilMidnightS}` : ''}`;
}
