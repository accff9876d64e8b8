/**
 * What the /stats page shows for a request, read on the server so the page works without
 * JavaScript: the same validation as the data API (date-range.ts), the same rows through the
 * same repository and the same record shape (toDataRecord), so the table a reader sees, the
 * JSON embedded for the chart and the API's answer for that range agree to the cent.
 */
import type { Logger } from 'pino';
import type { DbHandle } from '../../db/create-db.ts';
import { HttpError } from '../../lib/http-error.ts';
import type { DataRecord } from './data-record.ts';
import { MAX_RANGE_DAYS, parseDateRange } from './date-range.ts';
import { type Totals, totalsOf } from './stats-figures.ts';
import { type DayRange, defaultRange } from './stats-page.ts';
import { readDailyStats, toDataRecord } from './stats.server.ts';

/** Longest text of a rejected parameter echoed back into the form. */
const ECHO_MAX = 32;

export type StatsPageState =
  | {
      kind: 'ok';
      /** The validated range. */
      range: DayRange;
      /** One record per materialized day, ascending, exactly as the API returns them. */
      records: DataRecord[];
      totals: Totals;
    }
  | {
      kind: 'invalid';
      /** What the reader typed, echoed back into the form (bounded). */
      range: DayRange;
      /** The data API's SVC1005 message for the same query. */
      message: string;
    }
  | {
      kind: 'unavailable';
      range: DayRange;
    };

export interface StatsPage {
  /** HTTP status of the page: 200, 400 for an invalid range, 503 when the database fails. */
  status: 200 | 400 | 503;
  /**
   * Cache-Control of the page. A good answer may be reused for a minute (the edge's response
   * cache and browsers), the bound the data interface promises for a day that changes; errors
   * are not stored, as the API's error responses are not.
   */
  cacheControl: string;
  state: StatsPageState;
}

/** What the page reads with; the composition root's `Services` satisfies it. */
export interface StatsPageDeps {
  db: Pick<DbHandle, 'kysely'>;
  /** Where a failed read is reported (the page then answers 503). */
  log: Pick<Logger, 'error'>;
}

function echoed(params: URLSearchParams, name: 'startDate' | 'endDate'): string {
  return (params.get(name) ?? '').slice(0, ECHO_MAX);
}

/**
 * The page for a query. With neither `startDate` nor `endDate` the default range (the last 31
 * complete UTC days) is shown; with either, the query is judged by the API's rules.
 */
export async function loadStatsPage(params: URLSearchParams, deps: StatsPageDeps, nowMs: number): Promise<StatsPage> {
  const asked = params.has('startDate') || params.has('endDate');
  let range: DayRange;
  if (asked) {
    try {
      // The page reads only the API's two parameters; anything else (utm_source...) is not its business.
      const parsed = parseDateRange(new URLSearchParams(['startDate', 'endDate'].flatMap((name) => params.getAll(name).map((value) => [name, value]))));
      range = { startDate: parsed.startDate, endDate: parsed.endDate };
    } catch (error) {
      if (!(error instanceof HttpError) || error.code !== 'SVC1005') throw error;
      return {
        status: 400,
        cacheControl: 'no-store',
        state: { kind: 'invalid', range: { startDate: echoed(params, 'startDate'), endDate: echoed(params, 'endDate') }, message: error.detail ?? error.message },
      };
    }
  } else {
    range = defaultRange(nowMs, MAX_RANGE_DAYS);
  }

  try {
    const rows = await readDailyStats(deps.db.kysely, range.startDate, range.endDate);
    const records = rows.map(toDataRecord);
    return { status: 200, cacheControl: 'public, max-age=60', state: { kind: 'ok', range, records, totals: totalsOf(records) } };
  } catch (error) {
    deps.log.error({ err: error, range }, 'stats page: reading daily stats failed');
    return { status: 503, cacheControl: 'no-store', state: { kind: 'unavailable', range } };
  }
}

/**
 * JSON for a `<script type="application/json">` data block: `<` escaped so no value can close
 * the element (HTML Standard, "restrictions for contents of script elements"). A data block is
 * never executed, so the CSP's script hashes do not apply to it.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}
