/**
 * The options of a call of the data client (`getDailyStats`, `fetchDailyStats`), and their
 * check: every option is validated, and the months and the endpoint worked out, before anything
 * is sent.
 */
import { checkDay } from '../lib/calendar.ts';
import { PATHS } from '../lib/paths.ts';
import { monthRanges, type MonthRange } from './month-ranges.ts';
import { InvalidArgumentError } from './errors.ts';
import type { FetchLike, WaitNotice } from './fetch-month.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from './retry-policy.ts';
import type { MonthCache } from './month-cache.ts';

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

export interface Plan {
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
