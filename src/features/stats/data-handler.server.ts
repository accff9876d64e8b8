/**
 * Get Data (`PATHS.data`) as request in, response out. The Astro route is a one-line adapter
 * over this, and tests call it directly with real databases.
 *
 * Rate limiting and its headers (spec section 8) belong to the edge, which also keeps the
 * serialised 200 in its response cache for as long as `Cache-Control` allows (capped at 60 s)
 * and drops it when the materialiser commits; this handler only states the policy. Every 200 and
 * 304 says which days are final and which requested days have no record (settled.ts).
 */
import { HttpError, errorResponse, toHttpError } from '../../lib/http-error.ts';
import type { Services } from '../../app/services.ts';
import type { DataResponse } from './data-record.ts';
import { parseDateRange } from './date-range.ts';
import { ifNoneMatchMatches, strongEtag } from '../../lib/http-validators.ts';
import { cacheControlFor } from './response-caching.ts';
import { settlementHeaders } from './settled.ts';
import { readDailyStats, toDataRecord } from './stats.server.ts';
import type { DailyStatRow } from '../../db/schema.ts';
import { isStorageUnavailable } from '../../db/storage-errors.ts';

/**
 * Budget for reading the days, in ms: an unreachable or stuck database answers 503 within the
 * 5 s the interface promises, with room for the response itself.
 */
const READ_DEADLINE_MS = 4_000;


export interface HandleDataOptions {
  /** Clock for the cache policy and the settled day (tests pin it). */
  now?: () => number;
}


export async function handleData(request: Request, services: Services, options: HandleDataOptions = {}): Promise<Response> {
  const url = new URL(request.url);
  try {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new HttpError(405, 'method_not_allowed', { headers: { allow: 'GET, HEAD' } });
    }
    const range = parseDateRange(url.searchParams);
    const rows = await readWithin(services, range.startDate, range.endDate);
    const response: DataResponse = { status: 'Success', data: rows.map(toDataRecord) };
    const body = JSON.stringify(response);
    const nowMs = (options.now ?? Date.now)();
    const headers: Record<string, string> = {
      'cache-control': cacheControlFor(range, rows.length, nowMs),
      etag: strongEtag(body),
      // Which days are final and which are not there yet; no query beyond the rows above.
      ...settlementHeaders(range, rows.map((row) => row.day), nowMs),
    };
    // RFC 9110 section 15.4.5: a 304 carries the same Cache-Control and ETag a 200 would (and the
    // settlement headers, which a client's stored copy takes over, RFC 9111 section 4.3.4).
    if (ifNoneMatchMatches(request.headers.get('if-none-match'), headers['etag']!)) {
      return new Response(null, { status: 304, headers });
    }
    headers['content-type'] = 'application/json; charset=utf-8';
    return new Response(request.method === 'HEAD' ? null : body, { status: 200, headers });
  } catch (error) {
    const httpError = toHttpError(error);
    if (httpError.status >= 500) services.log.error({ err: error, path: url.pathname }, 'data request failed');
    return errorResponse(httpError, url.pathname);
  }
}

/** The days, or 503 service_unavailable when the database cannot answer in time (RFC 9110 section 15.6.4). */
async function readWithin(services: Services, startDate: string, endDate: string): Promise<DailyStatRow[]> {
  try {
    return await services.db.withDeadline(READ_DEADLINE_MS, () => readDailyStats(services.db.db, startDate, endDate));
  } catch (error) {
    if (!isStorageUnavailable(error)) throw error;
    throw new HttpError(503, 'service_unavailable', {
      detail: 'The statistics database is unavailable just now.',
      resolution: 'Try again in a few seconds.',
      headers: { 'retry-after': '5' },
      cause: error,
    });
  }
}
