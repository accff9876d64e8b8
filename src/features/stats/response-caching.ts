/**
 * How long a data response may be reused, and its validator (RFC 9111 caching, RFC 9110
 * section 8.8.3 ETag and 13.1.2 If-None-Match).
 *
 * A day is *settled* once no scheduled run will rewrite it: the nightly tick materialises
 * yesterday and re-materialises the two days before it (late events), so on UTC day T the days
 * up to T - 4 are final. A range made only of settled, materialised days may be cached for a day;
 * anything else (today, recent days, days not materialised yet) for a minute, which bounds how
 * long a client can see a day that has since changed. Manual backfills of old days are the
 * exception: they purge this instance's response cache, other caches catch up within max-age.
 */
import { createHash } from 'node:crypto';
import { dayOfInstant } from '../../lib/calendar.ts';
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

/** `Cache-Control` for a range answered with `materializedDays` records. */
export function cacheControlFor(range: DateRange, materializedDays: number, nowMs: number): string {
  const settled = range.end <= lastSettledDay(nowMs) && materializedDays === range.days;
  return `public, max-age=${settled ? LONG_MAX_AGE_S : SHORT_MAX_AGE_S}`;
}

/** A strong entity tag for a body: equal bytes, equal tag (RFC 9110 section 8.8.3). */
export function strongEtag(body: string): string {
  return `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether `If-None-Match` matches `etag`, so the answer is 304 (RFC 9110 section 13.1.2): `*`
 * matches any current representation, otherwise any listed tag matches by *weak* comparison
 * (the `W/` prefix is ignored).
 */
export function ifNoneMatchMatches(header: string | null, etag: string): boolean {
  if (header === null) return false;
  const value = header.trim();
  if (value === '*') return true;
  const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);
  const wanted = opaque(etag);
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => opaque(tag) === wanted);
}
