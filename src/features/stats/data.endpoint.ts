/**
 * Get Data (`PATHS.data`) as an endpoint (src/lib/endpoint.ts): plain request in, plain response
 * out. The route table binds it to its path; the edge calls it, and `astro dev` through the
 * one-line adapter.
 *
 * Rate limiting and its headers (docs/interface.md section 6) belong to the edge, which also
 * keeps the serialised 200 in its response cache for as long as `Cache-Control` allows (capped at
 * 60 s) and drops it when the materializer commits; this endpoint only states the policy. Every
 * 200 and 304 says which days are final and which requested days have no record (settled.ts).
 */
import type { Logger } from 'pino';
import type { DbHandle } from '../../db/create-db.ts';
import { HttpError, renderError, toHttpError } from '../../lib/http-error.ts';
import { timeLeft, type Endpoint } from '../../lib/endpoint.ts';
import { dataResponseBody } from './data-body.ts';
import { parseDateRange } from './date-range.ts';
import { ifNoneMatchMatches, strongEtag } from '../../lib/http-validators.ts';
import { cacheControlFor } from './response-caching.ts';
import { settlementHeaders } from './settled.ts';
import { dailyStatsSql, type DailyStatResult } from './stats.server.ts';
import { isStorageUnavailable } from '../../db/storage-errors.ts';
import type { Meter } from '../../lib/meter.ts';

/** What Get Data needs: the database, a log for its failures, and a clock (tests pin it). */
export interface DataDeps {
  db: DbHandle;
  log: Logger;
  /** Clock for the cache policy and the settled day; Date.now when absent. */
  now?: () => number;
  /** stats_query_duration_seconds; NO_METER when absent. */
  meter?: Meter;
}

export const dataEndpoint: Endpoint<DataDeps> = async (request, deps) => {
  const { url } = request;
  try {
    const range = parseDateRange(url.searchParams);
    // The request's one deadline bounds the read: an unreachable or stuck database answers 503
    // within the time the interface promises (docs/interface.md section 3).
    const queryStarted = performance.now();
    const rows = await readWithin(deps.db, range.startDate, range.endDate, timeLeft(request));
    deps.meter?.observe('stats_query_duration_seconds', (performance.now() - queryStarted) / 1000);
    // DataResponse's bytes, straight from the rows (data-body.ts), encoded once: for the ETag's
    // digest, the edge's response cache and the socket alike.
    const body = Buffer.from(dataResponseBody(rows));
    const nowMs = (deps.now ?? Date.now)();
    const headers: Record<string, string> = {
      'cache-control': cacheControlFor(range, rows.length, nowMs),
      etag: strongEtag(body),
      // Which days are final and which are not there yet; no query beyond the rows above.
      ...settlementHeaders(range, rows.map((row) => row.day), nowMs),
    };
    // RFC 9110 section 15.4.5: a 304 carries the same Cache-Control and ETag a 200 would (and the
    // settlement headers, which a client's stored copy takes over, RFC 9111 section 4.3.4).
    if (ifNoneMatchMatches(request.headers.get('if-none-match'), headers['etag']!)) {
      return { status: 304, headers, body: null };
    }
    headers['content-type'] = 'application/json; charset=utf-8';
    // A HEAD is this GET with its content left out by the caller (src/lib/methods.ts).
    return { status: 200, headers, body };
  } catch (error) {
    const httpError = toHttpError(error);
    if (httpError.status >= 500) deps.log.error({ err: error, path: url.pathname }, 'data request failed');
    return renderError(httpError, url.pathname);
  }
};

/**
 * The days, or 503 service_unavailable when the database cannot answer in time (RFC 9110 section
 * 15.6.4). `DbHandle.read` with the statement `readDailyStats` runs: on SQLite straight on the
 * reader connection when nothing locks it, the same deadline either way.
 */
async function readWithin(db: DbHandle, startDate: string, endDate: string, budgetMs: number): Promise<DailyStatResult[]> {
  try {
    return await db.read<DailyStatResult>(budgetMs, dailyStatsSql(db.kysely), [startDate, endDate]);
  } catch (error) {
    if (!isStorageUnavailable(error)) throw error;
    throw new HttpError('service_unavailable', {
      detail: 'The statistics database is unavailable just now.',
      resolution: 'Try again in a few seconds.',
      headers: { 'retry-after': '5' },
      cause: error,
    });
  }
}
