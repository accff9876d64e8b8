/**
 * A typed client of the community data interface (Get Data at `PATHS.data`, docs/interface.md
 * sections 3, 5 and 6) for integrators: any date range in, one record per materialized day out.
 *
 *   import { getDailyStats } from 'adtech-site/client';
 *   const records = await getDailyStats({ from: '2025-01-01', to: '2025-12-31', baseUrl: 'https://data.example' });
 *   const { records, settledThrough, missingDays, restatedDays } = await fetchDailyStats({ ... });
 *
 * It runs unchanged in browsers and Node 22+: nothing beyond the platform's fetch,
 * AbortSignal, URL, Headers and performance, and no import from the rest of the project.
 *
 * What it does for the caller, following the interface's recommended client behaviour (docs/interface.md section 7):
 * - cuts the range into months the server accepts (calendar months, at most 31 days each);
 * - runs them with bounded concurrency (2 by default);
 * - paces itself from the limit headers so that it is not refused, and stops with
 *   `DailyQuotaExceededError` as soon as the daily quota is spent;
 * - when refused anyway (another client on the same address), waits Retry-After plus full
 *   jitter, a bounded number of times; transient failures (network, 5xx) likewise;
 * - sends an API key as `Authorization: Bearer <token>` when given one, and surfaces a refused
 *   key as `UnauthorizedError` (401, not retried);
 * - keeps each month's last answer with its ETag and revalidates it on every call
 *   (If-None-Match): an unchanged month comes back as a 304, which costs no body and no daily
 *   quota, and a changed one, even a settled day an operator restated, as the new records;
 * - stops everything, waits included, when the AbortSignal fires.
 */
import { formatDay } from '../lib/calendar.ts';
import type { DataRecord } from './data-record.ts';
import type { MonthRange } from './month-ranges.ts';
import { fetchMonth, type MonthContext } from './fetch-month.ts';
import { missingDays, restatedDays, settledByClock } from './settled-days.ts';
import { createPacer } from './pacer.ts';
import { planRequest, type GetDailyStatsOptions } from './request-plan.ts';
import { copyRecords, sharedMemoryCache, storedAnswerOf, monthCacheKey, type StoredAnswer, type MonthCache } from './month-cache.ts';

export type { DataRecord } from './data-record.ts';
export type { MonthRange } from './month-ranges.ts';
export type { FetchLike, WaitNotice } from './fetch-month.ts';
export type { RetryPolicy } from './retry-policy.ts';
export type { StoredAnswer, MonthCache } from './month-cache.ts';
export { monthCacheKey } from './month-cache.ts';
export * from './errors.ts';
export { CONCURRENCY, DATA_PATH, planRequest, type GetDailyStatsOptions, type MonthProgress } from './request-plan.ts';

/** What a call returns beside the records: what the server said about their finality. */
export interface DailyStats {
  /** One record per day of the range that has one, ascending by date. */
  records: DataRecord[];
  /**
   * The latest last settled day the server named (X-Data-Settled-Through, YYYY-MM-DD) during
   * this call: no scheduled run rewrites the records up to it. Undefined when the server does not
   * send the header.
   */
  settledThrough: string | undefined;
  /**
   * Days of the range without a record, ascending (YYYY-MM-DD): not materialized yet (today,
   * the future, before the first event, a pending backfill), as X-Data-Missing-Days lists them.
   * Ask for them again later.
   */
  missingDays: string[];
  /**
   * Days of the range that were settled when the cache last had them and whose figures the
   * server has changed since (an operator's correction, docs/restatements.md), ascending. The
   * records hold the new figures.
   */
  restatedDays: string[];
}

/**
 * Daily statistics of `from` to `to` (UTC days, both included), ascending by date, one record
 * per day the server has materialized (days not materialized yet, such as today, are absent).
 * `fetchDailyStats` says in addition which days are final and which are missing.
 *
 * Rejects with `InvalidArgumentError` before any request when an option is wrong, with
 * `InvalidRequestError` (400 SVC1005, the server's message), `UnauthorizedError` (401, the
 * token was refused), `DailyQuotaExceededError` (with `resetsAt`), `RateLimitedError`,
 * `ServerUnavailableError` or `UnexpectedResponseError`, or with the signal's reason when
 * aborted. Months fetched before a failure stay cached.
 */
export async function getDailyStats(options: GetDailyStatsOptions): Promise<DataRecord[]> {
  return (await fetchDailyStats(options)).records;
}

/** `getDailyStats` with the server's word on the records: the last settled day, the missing and the restated days. */
export async function fetchDailyStats(options: GetDailyStatsOptions): Promise<DailyStats> {
  const plan = planRequest(options);
  const outer = options.signal;
  outer?.throwIfAborted();
  // One controller for the whole call: the caller's abort, or the first failure, stops every
  // month (requests and waits alike).
  const controller = new AbortController();
  const forward = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', forward, { once: true });

  const cache = options.cache === false || !plan.conditional ? undefined : (options.cache ?? sharedMemoryCache);
  const now = options.now ?? Date.now;
  const context: MonthContext = {
    plan,
    pacer: createPacer(),
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    signal: controller.signal,
    random: options.random ?? Math.random,
    onWait: options.onWait,
  };
  const results: DataRecord[][] = [];
  const restated: string[] = [];
  let settledThrough: number | undefined;
  let next = 0;
  let done = 0;
  let failure: { error: unknown } | undefined;

  const report = (month: MonthRange, fromCache: boolean) => options.onProgress?.({ done: ++done, total: plan.months.length, month, fromCache });

  async function worker(): Promise<void> {
    while (failure === undefined && next < plan.months.length) {
      const index = next++;
      const month = plan.months[index]!;
      const key = monthCacheKey(plan.endpoint, month);
      const stored = cache === undefined ? undefined : await readCache(cache, key, month);
      const answer = await fetchMonth(month, context, stored);
      if (answer.settledThrough !== undefined) settledThrough = Math.max(settledThrough ?? answer.settledThrough, answer.settledThrough);
      if (stored !== undefined && !answer.notModified) restated.push(...restatedDays(stored, answer.records));
      if (cache !== undefined && answer.etag !== undefined) {
        // What of the month is settled now; a 304 rewrites the entry only when that moved.
        const settled = formatDay(Math.min(month.end, answer.settledThrough ?? settledByClock(now())));
        if (!answer.notModified || stored?.settledThrough !== settled) await writeCache(cache, key, { etag: answer.etag, settledThrough: settled, records: answer.records });
      }
      results[index] = answer.records;
      report(month, answer.notModified);
    }
  }

  try {
    await Promise.all(
      Array.from({ length: Math.min(plan.concurrency, plan.months.length) }, () =>
        worker().catch((error: unknown) => {
          if (failure === undefined) {
            failure = { error };
            controller.abort(error);
          }
        }),
      ),
    );
  } finally {
    outer?.removeEventListener('abort', forward);
  }
  if (outer?.aborted) throw outer.reason;
  if (failure !== undefined) throw (failure as { error: unknown }).error;
  const records = results.flat();
  return {
    records,
    settledThrough: settledThrough === undefined ? undefined : formatDay(settledThrough),
    missingDays: missingDays(records, options.from, options.to),
    restatedDays: restated.sort(),
  };
}

async function readCache(cache: MonthCache, key: string, month: MonthRange): Promise<StoredAnswer | undefined> {
  try {
    // An entry that does not check out (edited file, older format) is a miss, fetched again.
    return storedAnswerOf(await cache.get(key), month);
  } catch {
    // A cache is an optimisation: one that cannot be read must not fail the fetch.
    return undefined;
  }
}

async function writeCache(cache: MonthCache, key: string, answer: StoredAnswer): Promise<void> {
  try {
    await cache.set(key, { ...answer, records: copyRecords(answer.records) });
  } catch {
    // As above: a full disk or a read-only cache directory costs a body next time, nothing now.
  }
}
