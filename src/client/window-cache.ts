/**
 * Where the client keeps the settled days of its windows, so a repeated query costs no request
 * for them (docs/interface.md section 7: clients cache what is settled).
 *
 * A window's entry is the run of its records from its first day up to the server's last settled
 * day (X-Data-Settled-Through), without a gap (settled-days.ts): those records never change, so
 * they are kept for good, and a later call asks only for the days after the run. A day without a
 * record ends the run, since it may still appear (a pending backfill).
 */
import type { DataRecord } from './data-record.ts';
import type { DateWindow } from './date-windows.ts';

/**
 * Storage for windows' settled records. A `Map<string, DataRecord[]>` is one; the CLI's
 * on-disk cache (disk-cache.ts, Node only) is another. Either method may be async. A failing
 * cache is treated as a miss, never as a failed fetch.
 */
export interface WindowCache {
  get(key: string): DataRecord[] | undefined | Promise<DataRecord[] | undefined>;
  /** The return value is ignored (so `Map#set`, which returns the map, fits). */
  set(key: string, records: DataRecord[]): unknown;
}

/**
 * The cache key of a window: the exact request URL that would fetch it. It names the server
 * (scheme, host, port, path prefix) and the range, so one cache can serve several servers, and
 * a change of API version (the /v1/ segment) never reads an older version's entries.
 */
export function windowCacheKey(endpoint: URL, window: DateWindow): string {
  return requestUrl(endpoint, window);
}

/** The Get Data URL of a window (docs/interface.md section 3). */
export function requestUrl(endpoint: URL, window: DateWindow): string {
  const url = new URL(endpoint);
  url.search = new URLSearchParams({ startDate: window.startDate, endDate: window.endDate }).toString();
  return url.href;
}

/**
 * The cache used when the caller passes none: one per page or process, living as long as it.
 * Its size is bounded by the settled windows ever asked for (about 3 KB per month of data).
 */
export const sharedMemoryCache: WindowCache = new Map<string, DataRecord[]>();

/** Records copied one level deep, so neither the caller nor the cache can change the other's. */
export function copyRecords(records: readonly DataRecord[]): DataRecord[] {
  return records.map((record) => ({ ...record }));
}
