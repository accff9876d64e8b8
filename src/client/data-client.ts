/**
 * A typed client of the community data interface (Get Data at `PATHS.data`, interface spec
 * sections 4, 7 and 8) for integrators: any date range in, one record per materialised day out.
 *
 *   import { getDailyStats } from 'adtech-site/client';
 *   const records = await getDailyStats({ from: '2025-01-01', to: '2025-12-31', baseUrl: 'https://data.example' });
 *
 * It runs unchanged in browsers and Node 22+: nothing beyond the platform's fetch,
 * AbortSignal, URL, Headers and performance, and no import from the rest of the project.
 *
 * What it does for the caller, following the spec's recommended client behaviour:
 * - cuts the range into windows the server accepts (calendar months, at most 31 days each);
 * - runs them with bounded concurrency (2 by default);
 * - paces itself from the limit headers so that it is not refused, and stops with
 *   `DailyQuotaExceededError` as soon as the daily quota is spent;
 * - when refused anyway (another client on the same address), waits Retry-After plus full
 *   jitter, a bounded number of times; transient failures (network, 5xx) likewise;
 * - keeps settled windows in a cache, so asking again costs no request;
 * - stops everything, waits included, when the AbortSignal fires.
 */
import { checkDay } from '../lib/calendar.ts';
import { PATHS } from '../lib/paths.ts';
import { recordsOf, type DataRecord } from './data-record.ts';
import { isSettled, monthWindows, type DateWindow } from './date-windows.ts';
import { InvalidArgumentError } from './errors.ts';
import { fetchWindow, type FetchLike, type WaitNotice, type WindowContext } from './fetch-window.ts';
import { createPacer } from './pacer.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './rate-pacing.ts';
import { copyRecords, sharedMemoryCache, windowCacheKey, type WindowCache } from './window-cache.ts';

export type { DataRecord } from './data-record.ts';
export type { DateWindow } from './date-windows.ts';
export type { FetchLike, WaitNotice } from './fetch-window.ts';
export type { RetryPolicy } from './rate-pacing.ts';
export type { WindowCache } from './window-cache.ts';
export { windowCacheKey } from './window-cache.ts';
export * from './errors.ts';

/** Path of Get Data below the base URL (relative, so a base URL's path prefix is kept). */
export const DATA_PATH = PATHS.data.slice(1);
/** Windows fetched at once: by default enough to hide latency and gentle on the limits; at most `max`. */
export const CONCURRENCY = { default: 2, max: 8 } as const;

/** Reported after each window, in completion order. */
export interface WindowProgress {
  /** Windows finished so far, this one included. */
  done: number;
  /** Windows in the whole range. */
  total: number;
  /** The window just finished. */
  window: DateWindow;
  /** True when it came from the cache, without a request. */
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
  /** Windows fetched at the same time, 1 to 8 (default 2). */
  concurrency?: number | undefined;
  /** Where settled windows are kept (default: one in-memory cache shared by every call); `false` for none. */
  cache?: WindowCache | false | undefined;
  /** The fetch to use (default `globalThis.fetch`); tests and proxies inject their own. */
  fetch?: FetchLike | undefined;
  /** Called after each window. */
  onProgress?: ((progress: WindowProgress) => void) | undefined;
  /** Called before each wait imposed by the limits or a retry. */
  onWait?: ((notice: WaitNotice) => void) | undefined;
  /** Wall clock deciding which windows are settled (default `Date.now`). Waits always use real time. */
  now?: (() => number) | undefined;
  /** Attempts and backoff bounds per window (defaults: 5 attempts, 500 ms base, 30 s cap). */
  retry?: Partial<RetryPolicy> | undefined;
  /** Source of jitter in [0, 1) (default `Math.random`). */
  random?: (() => number) | undefined;
}

interface Plan {
  endpoint: URL;
  windows: DateWindow[];
  concurrency: number;
  retry: RetryPolicy;
}

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
  return { endpoint, windows: monthWindows(from, to), concurrency, retry };
}

/**
 * Daily statistics of `from` to `to` (UTC days, both included), ascending by date, one record
 * per day the server has materialised (days not materialised yet, such as today, are absent).
 *
 * Rejects with `InvalidArgumentError` before any request when an option is wrong, with
 * `InvalidRequestError` (400 SVC1005, the server's message), `DailyQuotaExceededError` (with
 * `resetsAt`), `RateLimitedError`, `ServerUnavailableError` or `UnexpectedResponseError`, or
 * with the signal's reason when aborted. Settled windows fetched before a failure stay cached.
 */
export async function getDailyStats(options: GetDailyStatsOptions): Promise<DataRecord[]> {
  const plan = planRequest(options);
  const outer = options.signal;
  outer?.throwIfAborted();
  // One controller for the whole call: the caller's abort, or the first failure, stops every
  // window (requests and waits alike).
  const controller = new AbortController();
  const forward = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', forward, { once: true });

  const cache = options.cache === false ? undefined : (options.cache ?? sharedMemoryCache);
  const now = options.now ?? Date.now;
  const context: WindowContext = {
    plan,
    pacer: createPacer(),
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    signal: controller.signal,
    random: options.random ?? Math.random,
    onWait: options.onWait,
  };
  const results: DataRecord[][] = [];
  let next = 0;
  let done = 0;
  let failure: { error: unknown } | undefined;

  const report = (window: DateWindow, fromCache: boolean) => options.onProgress?.({ done: ++done, total: plan.windows.length, window, fromCache });

  async function worker(): Promise<void> {
    while (failure === undefined && next < plan.windows.length) {
      const index = next++;
      const window = plan.windows[index]!;
      const key = windowCacheKey(plan.endpoint, window);
      const cacheable = cache !== undefined && isSettled(window, now());
      if (cacheable) {
        const hit = await readCache(cache, key, window);
        if (hit !== undefined) {
          results[index] = hit;
          report(window, true);
          continue;
        }
      }
      const records = await fetchWindow(window, context);
      if (cacheable && records.length === window.days) await writeCache(cache, key, records);
      results[index] = records;
      report(window, false);
    }
  }

  try {
    await Promise.all(
      Array.from({ length: Math.min(plan.concurrency, plan.windows.length) }, () =>
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
  return results.flat();
}

async function readCache(cache: WindowCache, key: string, window: DateWindow): Promise<DataRecord[] | undefined> {
  try {
    const value = await cache.get(key);
    if (value === undefined) return undefined;
    const records = recordsOf(value, window, true);
    // An entry that does not check out (edited file, older format) is a miss, fetched again.
    return typeof records === 'string' || records.length !== window.days ? undefined : copyRecords(records);
  } catch {
    // A cache is an optimisation: one that cannot be read must not fail the fetch.
    return undefined;
  }
}

async function writeCache(cache: WindowCache, key: string, records: DataRecord[]): Promise<void> {
  try {
    await cache.set(key, copyRecords(records));
  } catch {
    // As above: a full disk or a read-only cache directory costs requests next time, nothing now.
  }
}
