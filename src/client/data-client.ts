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
import { checkDay, formatDay } from '../lib/calendar.ts';
import { PATHS } from '../lib/paths.ts';
import type { DataRecord } from './data-record.ts';
import { monthRanges, type MonthRange } from './month-ranges.ts';
import { InvalidArgumentError } from './errors.ts';
import { fetchMonth, type FetchLike, type WaitNotice, type MonthContext } from './fetch-month.ts';
import { missingDays, restatedDays, settledByClock } from './settled-days.ts';
import { createPacer } from './pacer.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './rate-pacing.ts';
import { copyRecords, sharedMemoryCache, storedAnswerOf, monthCacheKey, type StoredAnswer, type MonthCache } from './month-cache.ts';

export type { DataRecord } from './data-record.ts';
export type { MonthRange } from './month-ranges.ts';
export type { FetchLike, WaitNotice } from './fetch-month.ts';
export type { RetryPolicy } from './rate-pacing.ts';
export type { StoredAnswer, MonthCache } from './month-cache.ts';
export { monthCacheKey } from './month-cache.ts';
export * from './errors.ts';

/** Path of Get Data below the base URL (relative, so a base URL's path prefix is kept). */
export const DATA_PATH = PATHS.data.slice(1);
/** Months fetched at once: by default enough to hide latency and gentle on the limits; at most `max`. */
export const CONCURRENCY = { default: 2, max: 8 } as const;

/** Reported after each month, in completion order. */
export interface MonthProgress {
  /** Months finished so far, this one included. */
  done: number;
  /** Months in the whole range. */
  total: number;
  /** The month just finished. */
  month: MonthRange;
  /** True when its records came from the cache: the server confirmed them with a 304 Not Modified. */
  fromCache: boolean;
}

export interface GetDailyStatsOptions {
  /** First day of the range (UTC), YYYY-MM-DD, included. */
  from: string;
  /** Last day of the range (UTC), YYYY-MM-DD, included; not before `from`. Any length. */
  to: string;
  /** Where the service is, e.g. `https://data.example` (a path prefix is kept: `https://x.example/stats/`). */
  baseUrl: string | URL;
  /** Cancels everything: requests in flight and waits. The call then rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Months fetched at the same time, 1 to 8 (default 2). */
  concurrency?: number | undefined;
  /**
   * API key, sent as `Authorization: Bearer <token>` (RFC 6750). Optional: the data API answers
   * without one, under the anonymous limits. Never logged or put in an error message.
   */
  token?: string | undefined;
  /**
   * Where each month's last answer is kept with its ETag, to be revalidated on the next call
   * (default: one in-memory cache shared by every call); `false` for none.
   */
  cache?: MonthCache | false | undefined;
  /** The fetch to use (default `globalThis.fetch`); tests and proxies inject their own. */
  fetch?: FetchLike | undefined;
  /** Called after each month. */
  onProgress?: ((progress: MonthProgress) => void) | undefined;
  /** Called before each wait imposed by the limits or a retry. */
  onWait?: ((notice: WaitNotice) => void) | undefined;
  /**
   * Wall clock deciding which days are settled, for `restatedDays`, when the server does not say
   * so itself (no X-Data-Settled-Through header; default `Date.now`). Waits always use real time.
   */
  now?: (() => number) | undefined;
  /** Attempts and backoff bounds per month (defaults: 5 attempts, 500 ms base, 30 s cap). */
  retry?: Partial<RetryPolicy> | undefined;
  /** Source of jitter in [0, 1) (default `Math.random`). */
  random?: (() => number) | undefined;
}

interface Plan {
  endpoint: URL;
  months: MonthRange[];
  concurrency: number;
  retry: RetryPolicy;
  token: string | undefined;
  /**
   * Whether the client revalidates stored answers itself (If-None-Match). Not from a page of
   * another origin without a token: If-None-Match is no CORS-safelisted request header, so each
   * call would need a preflight first. There the browser's own HTTP cache revalidates instead
   * (`cache: 'no-cache'`: the validators it adds are no author headers), and nothing is stored.
   */
  conditional: boolean;
}

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

/** RFC 6750 section 2.1 `b64token`: what may follow `Bearer ` in an Authorization header. */
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Check every option before anything is sent; throws `InvalidArgumentError` naming the first wrong one. */
export function planRequest(options: GetDailyStatsOptions): Plan {
  const day = (name: 'from' | 'to', value: unknown): number => {
    if (typeof value !== 'string') throw new InvalidArgumentError(name, `must be a YYYY-MM-DD string, got ${typeof value}`);
    const parsed = checkDay(value);
    if (parsed.ok) return parsed.epochDay;
    throw new InvalidArgumentError(
      name,
      parsed.problem === 'format' ? `must be a date in YYYY-MM-DD format, got ${JSON.stringify(value)}` : `${JSON.stringify(value)} is not a calendar date`,
    );
  };
  const from = day('from', options.from);
  const to = day('to', options.to);
  if (to < from) throw new InvalidArgumentError('to', `${options.to} is before from ${options.from}`);

  let endpoint: URL;
  try {
    endpoint = new URL(String(options.baseUrl));
  } catch {
    throw new InvalidArgumentError('baseUrl', `must be an absolute http(s) URL, got ${JSON.stringify(String(options.baseUrl))}`);
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new InvalidArgumentError('baseUrl', `must be an http(s) URL, got ${JSON.stringify(endpoint.protocol)}`);
  }
  // fetch refuses a URL with credentials (Fetch Standard, "Request" constructor) with a TypeError
  // that would otherwise look like an outage; the data API is public and takes none. The message
  // names where, never the password.
  if (endpoint.username !== '' || endpoint.password !== '') {
    throw new InvalidArgumentError('baseUrl', `must not carry credentials (user:password@ in ${endpoint.protocol}//***@${endpoint.host}): the data API needs none, and fetch refuses such URLs`);
  }
  // `new URL('api/...', base)` resolves against the base's directory: end the path with a slash
  // so a prefix (`https://x.example/stats`) is kept rather than replaced.
  endpoint.search = '';
  endpoint.hash = '';
  if (!endpoint.pathname.endsWith('/')) endpoint.pathname += '/';
  endpoint = new URL(DATA_PATH, endpoint);

  const concurrency = options.concurrency ?? CONCURRENCY.default;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > CONCURRENCY.max) {
    throw new InvalidArgumentError('concurrency', `must be a whole number from 1 to ${CONCURRENCY.max}, got ${String(concurrency)}`);
  }
  const retry: RetryPolicy = { ...DEFAULT_RETRY_POLICY };
  for (const [name, value] of Object.entries(options.retry ?? {})) {
    if (value === undefined || !(name in retry)) continue;
    const max = name === 'maxAttempts' ? 20 : 3_600_000;
    const min = name === 'maxAttempts' ? 1 : 0;
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`retry.${name}`, `must be a whole number from ${min} to ${max}, got ${String(value)}`);
    }
    retry[name as keyof RetryPolicy] = value;
  }
  const token = options.token;
  // The message never shows the token: it may be in a log that others read.
  if (token !== undefined && (typeof token !== 'string' || !B64TOKEN.test(token))) {
    throw new InvalidArgumentError('token', 'must be an API key of letters, digits and - . _ ~ + / (then = padding), as RFC 6750 allows after "Bearer "');
  }
  return { endpoint, months: monthRanges(from, to), concurrency, retry, token, conditional: token !== undefined || !isOtherOrigin(endpoint) };
}

/** True in a browser (or worker) whose page is not of `endpoint`'s origin; Node has no `location`. */
function isOtherOrigin(endpoint: URL): boolean {
  const origin = (globalThis as { location?: { origin?: unknown } }).location?.origin;
  return typeof origin === 'string' && origin !== endpoint.origin;
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
