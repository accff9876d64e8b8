/**
 * Where the client keeps the last answer of each month, so a repeated query costs no body and
 * no daily quota (docs/interface.md section 7: clients cache what is settled, and revalidate it).
 *
 * An entry is a month's records with the strong ETag they came with. It is never trusted on its
 * own: every call sends the tag back as `If-None-Match` (RFC 9110 section 13.1.2), and the server
 * answers 304 Not Modified while the month's records are unchanged (a 304 does not spend the
 * daily quota) or 200 with the new ones. The tag is a digest of the body, so it changes whenever
 * any record of the month does, settled days included: an operator who restates an old day
 * (docs/restatements.md) reaches every client on its next call.
 */
import { checkDay } from '../lib/calendar.ts';
import { recordsOf, type DataRecord } from './data-record.ts';
import type { MonthRange } from './month-ranges.ts';

/** A month's last answer. */
export interface StoredAnswer {
  /** Its ETag, sent back as If-None-Match. */
  etag: string;
  /**
   * The last settled day (X-Data-Settled-Through, YYYY-MM-DD) when the records were last
   * confirmed: a later change to a record up to it is a restatement (`DailyStats.restatedDays`).
   */
  settledThrough?: string;
  /** Its records, ascending by date. */
  records: DataRecord[];
}

/**
 * Storage for months' last answers. A `Map<string, StoredAnswer>` is one; the CLI's on-disk
 * cache (disk-cache.ts, Node only) is another. Either method may be async. A failing cache is
 * treated as a miss, never as a failed fetch.
 */
export interface MonthCache {
  get(key: string): StoredAnswer | undefined | Promise<StoredAnswer | undefined>;
  /** The return value is ignored (so `Map#set`, which returns the map, fits). */
  set(key: string, answer: StoredAnswer): unknown;
}

/**
 * The cache key of a month: the exact request URL that would fetch it. It names the server
 * (scheme, host, port, path prefix) and the range, so one cache can serve several servers, and
 * a change of API version (the /v1/ segment) never reads an older version's entries.
 */
export function monthCacheKey(endpoint: URL, month: MonthRange): string {
  return requestUrl(endpoint, month);
}

/** The Get Data URL of a month (docs/interface.md section 3). */
export function requestUrl(endpoint: URL, month: MonthRange): string {
  const url = new URL(endpoint);
  url.search = new URLSearchParams({ startDate: month.startDate, endDate: month.endDate }).toString();
  return url.href;
}

/**
 * The cache used when the caller passes none: one per page or process, living as long as it.
 * Its size is bounded by the months ever asked for (about 3 KB per month of data).
 */
export const sharedMemoryCache: MonthCache = new Map<string, StoredAnswer>();

/** An entity tag (RFC 9110 section 8.8.3): optionally weak, then a quoted opaque string. */
const ENTITY_TAG = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/;

/**
 * A cache entry as the answer of `month` it claims to be, copied, or undefined when it is not
 * one (an edited file, an older format, another month's records): then it is a miss, and the
 * month is asked for without a validator.
 */
export function storedAnswerOf(value: unknown, month: MonthRange): StoredAnswer | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { etag, settledThrough, records } = value as Record<string, unknown>;
  if (typeof etag !== 'string' || !ENTITY_TAG.test(etag)) return undefined;
  if (settledThrough !== undefined && (typeof settledThrough !== 'string' || !checkDay(settledThrough).ok)) return undefined;
  // recordsOf checks every record and builds new objects: the caller gets a copy.
  const checked = recordsOf(records, month, true);
  if (typeof checked === 'string') return undefined;
  return { etag, ...(settledThrough === undefined ? {} : { settledThrough }), records: checked };
}

/** Records copied one level deep, so neither the caller nor the cache can change the other's. */
export function copyRecords(records: readonly DataRecord[]): DataRecord[] {
  return records.map((record) => ({ ...record }));
}
