/**
 * Fetch daily statistics of any date range from the community data interface, for integrators
 * and operators: the data client (src/client/data-client.ts) with a progress bar, an on-disk
 * cache of each month's last answer (revalidated on every run: a 304 costs no daily quota, and a
 * day the server restated comes back with its new figures), and one record per day on stdout.
 *
 *   npm run -s data:fetch -- --from 2025-01-01 --to 2025-12-31 [--format csv|json]
 *                            [--base-url URL] [--cache-dir DIR] [--concurrency N] [--token KEY]
 *
 * An API key comes from --token or, better (it then stays out of shell history and `ps`), from
 * the DATA_API_TOKEN environment variable; it is sent as `Authorization: Bearer <key>` and never
 * printed. stderr ends with a summary: requests, months the cache answered (304), the server's
 * last settled day, the days that had no record, and the days restated since they were cached.
 *
 * Exit status follows sysexits(3), so scripts can tell what to do next:
 *   0 ok · 64 usage (bad flags or dates) · 65 the server refused the request (400 SVC1005)
 *   69 server unavailable (unreachable, 5xx, or not the data service) · 73 cache directory unusable
 *   75 try again later (daily quota spent: stderr names the reset time; or still rate limited)
 *   77 the API key was refused (401)
 *   130 interrupted (SIGINT), 143 terminated (SIGTERM).
 */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { stringify } from 'csv-stringify/sync';
import {
  CONCURRENCY,
  DailyQuotaExceededError,
  DataClientError,
  fetchDailyStats,
  InvalidArgumentError,
  planRequest,
  type DataRecord,
  type FetchLike,
  type GetDailyStatsOptions,
} from '../../src/client/data-client.ts';
import { createDiskCache, makeDirectory } from '../../src/client/disk-cache.ts';
import { EX_CANTCREAT, EX_DATAERR, EX_NOPERM, EX_SOFTWARE, EX_TEMPFAIL, EX_UNAVAILABLE, EX_USAGE } from '../../src/app/exit-codes.ts';
import { progress, type Progress } from './progress-bar.ts';
import { type Cli, type CliValues, runCli, UsageError } from './run-cli.ts';
import { interruptions } from './interruptions.ts';

/** The server's own default address (src/app/config.ts: HOST 127.0.0.1, PORT 4321). */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4321';

/**
 * Where `npm start` listens with the same environment: HOST and PORT (an unspecified HOST,
 * 0.0.0.0 or ::, is reached on loopback), else the server's defaults. Before, 4321 was assumed
 * whatever PORT the site ran on. An unusable PORT (not 1-65535) falls back to the default, and
 * --base-url always wins.
 */
export function defaultBaseUrl(env: Record<string, string | undefined>): string {
  const port = env['PORT']?.trim();
  const host = env['HOST']?.trim() || '127.0.0.1';
  const portOk = port !== undefined && /^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65_535;
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${reachable}:${portOk ? Number(port) : 4321}`;
}
/** Where the API key is read from when --token is not given. */
export const TOKEN_ENV = 'DATA_API_TOKEN';

export const USAGE = {
  synopsis: 'data-fetch --from YYYY-MM-DD --to YYYY-MM-DD [--format csv|json] [--base-url URL] [--cache-dir DIR] [--concurrency N] [--token KEY (or DATA_API_TOKEN)]',
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    format: { type: 'string', default: 'csv' },
    'base-url': { type: 'string' },
    'cache-dir': { type: 'string' },
    concurrency: { type: 'string' },
    token: { type: 'string' },
  },
  details: [
    '  --from, --to   the first and last UTC day, YYYY-MM-DD (required; any range, fetched a month per request)',
    '  --format       csv or json (default csv)',
    `  --base-url     the server (default: http://HOST:PORT as npm start listens with this environment, ${DEFAULT_BASE_URL} without them)`,
    '  --cache-dir    keep settled days there and read them back next time (default: no cache)',
    `  --concurrency  requests in flight, 1 to ${CONCURRENCY.max} (default ${CONCURRENCY.default})`,
    `  --token        an API key, sent as Bearer (default: ${TOKEN_ENV}, else none: anonymous limits)`,
    'Exit: 0 done · 64 usage · 65 request refused · 69 server unavailable · 73 --cache-dir unusable · 75 try later · 77 key refused · 130/143 interrupted (SIGINT/SIGTERM) · 70 a bug',
  ].join('\n'),
} as const;

/** sysexits(3) codes this command uses. */
const EXIT = {
  ok: 0,
  usage: EX_USAGE,
  dataErr: EX_DATAERR,
  unavailable: EX_UNAVAILABLE,
  cantCreate: EX_CANTCREAT,
  tempFail: EX_TEMPFAIL,
  noPerm: EX_NOPERM,
  software: EX_SOFTWARE,
} as const;

type Format = 'csv' | 'json';

interface CliPlan {
  from: string;
  to: string;
  format: Format;
  baseUrl: string;
  cacheDir: string | undefined;
  concurrency: number | undefined;
  /** The API key (--token, else DATA_API_TOKEN); never printed. */
  token: string | undefined;
}

type PlanResult = { kind: 'run'; plan: CliPlan } | { kind: 'usage'; message: string };

/** Parsed flags to a plan. Dates and the URL are checked by the client itself (one set of rules, one set of messages). */
function planOf(values: CliValues<typeof USAGE.options>, env: Record<string, string | undefined>): PlanResult {
  if (values.from === undefined || values.to === undefined) return { kind: 'usage', message: '--from and --to are both required' };
  if (values.format !== 'csv' && values.format !== 'json') return { kind: 'usage', message: `--format must be csv or json, got ${JSON.stringify(values.format)}` };
  // The client checks the dates too, but would name the other end `from`, not `--from`.
  if (/^\d{4}-\d{2}-\d{2}$/.test(values.from) && /^\d{4}-\d{2}-\d{2}$/.test(values.to) && values.to < values.from) {
    return { kind: 'usage', message: `--to ${values.to} is before --from ${values.from}` };
  }
  const concurrency = values.concurrency;
  if (concurrency !== undefined && !/^\d{1,2}$/.test(concurrency)) return { kind: 'usage', message: `--concurrency must be a whole number, got ${JSON.stringify(concurrency)}` };
  return {
    kind: 'run',
    plan: {
      from: values.from,
      to: values.to,
      format: values.format,
      baseUrl: values['base-url'] ?? defaultBaseUrl(env),
      cacheDir: values['cache-dir'],
      concurrency: concurrency === undefined ? undefined : Number(concurrency),
      // Empty counts as unset, as for the server's variables.
      token: values.token || env[TOKEN_ENV] || undefined,
    },
  };
}

/** The client's option names as this command's flags, for messages. */
const FLAG_OF: Record<string, string> = { from: '--from', to: '--to', baseUrl: '--base-url', concurrency: '--concurrency', token: `--token (or ${TOKEN_ENV})` };

/** What a failure means for the exit status. */
export function exitCodeFor(error: unknown): number {
  if (!(error instanceof DataClientError)) return EXIT.software;
  switch (error.code) {
    case 'invalid_argument':
      return EXIT.usage;
    case 'invalid_request':
      return EXIT.dataErr;
    case 'unauthorized':
      return EXIT.noPerm;
    case 'daily_quota_exceeded':
    case 'rate_limited':
      return EXIT.tempFail;
    case 'server_unavailable':
    case 'unexpected_response':
      return EXIT.unavailable;
  }
}

/** The message printed for a failure. */
export function describeFailure(error: unknown): string {
  if (error instanceof InvalidArgumentError) return `${FLAG_OF[error.argument] ?? error.argument} ${error.detail}`;
  if (error instanceof DailyQuotaExceededError) return `${error.message}; run again after that`;
  if (error instanceof DataClientError && error.code === 'unauthorized') return `${error.message}; check --token or ${TOKEN_ENV}`;
  return error instanceof Error ? error.message : String(error);
}

/** Up to six days as a list, more as the first three and the last. */
function listDays(days: readonly string[]): string {
  return days.length > 6 ? `${days.slice(0, 3).join(', ')} ... ${days.at(-1)}` : days.join(', ');
}

/** The summary's second line: which days are final, which had no record. */
export function describeSettlement(settledThrough: string | undefined, missingDays: readonly string[]): string {
  const settled = settledThrough !== undefined ? `days up to ${settledThrough} are final` : 'the server did not say which days are final';
  if (missingDays.length === 0) return `${settled}; no day missing`;
  return `${settled}; ${missingDays.length} day${missingDays.length === 1 ? '' : 's'} without a record yet (${listDays(missingDays)})`;
}

/** The summary's line on restated days (an operator's correction of final figures), if any. */
export function describeRestated(restatedDays: readonly string[]): string | undefined {
  if (restatedDays.length === 0) return undefined;
  const days = `${restatedDays.length} day${restatedDays.length === 1 ? '' : 's'}`;
  return `${days} restated by the server since cached as final, now with the new figures (${listDays(restatedDays)})`;
}

/**
 * Records as text: CSV (RFC 4180, with a header line, revenue with exactly two decimals as
 * money is written) or a JSON array with one record per line.
 */
export function formatRecords(records: readonly DataRecord[], format: Format): string {
  if (format === 'json') return records.length === 0 ? '[]\n' : `[\n${records.map((r) => JSON.stringify(r)).join(',\n')}\n]\n`;
  return stringify(
    records.map((r) => [r.date, r.txn_count, r.impr_count, r.service_revenue.toFixed(2)]),
    { header: true, columns: ['date', 'txn_count', 'impr_count', 'service_revenue'] },
  );
}

function countingFetch(counter: { requests: number }): FetchLike {
  return (url, init) => {
    counter.requests++;
    return globalThis.fetch(url, init);
  };
}

/** Create the cache directory if need be and check it can be written; says why not on stderr. */
async function usableCacheDir(dir: string): Promise<boolean> {
  try {
    await makeDirectory(dir);
    await access(dir, constants.W_OK | constants.X_OK);
    return true;
  } catch (error) {
    process.stderr.write(`data-fetch: cannot use --cache-dir ${dir}: ${(error as Error).message}\n`);
    return false;
  }
}

async function main({ values }: Cli<typeof USAGE.options>): Promise<number> {
  const parsed = planOf(values, process.env);
  if (parsed.kind === 'usage') throw new UsageError(parsed.message);
  const { plan } = parsed;
  if (plan.cacheDir !== undefined && !(await usableCacheDir(plan.cacheDir))) return EXIT.cantCreate;
  const interrupt = interruptions();

  // A bar on a terminal, a line every few seconds elsewhere; on stderr so stdout stays data.
  let bar: Progress | undefined;
  let monthsDone = 0;
  const counter = { requests: 0 };
  let fromCache = 0;
  const started = performance.now();
  const options: GetDailyStatsOptions = {
    from: plan.from,
    to: plan.to,
    baseUrl: plan.baseUrl,
    signal: interrupt.signal,
    concurrency: plan.concurrency,
    token: plan.token,
    // No --cache-dir: nothing outlives this process, so no cache at all.
    cache: plan.cacheDir === undefined ? false : createDiskCache(plan.cacheDir),
    fetch: countingFetch(counter),
    onProgress: ({ done, month, fromCache: cached }) => {
      if (cached) fromCache++;
      monthsDone = done;
      bar?.update(done, { status: `${month.startDate} to ${month.endDate}${cached ? ' (cached)' : ''}` });
    },
    onWait: ({ reason, ms }) => {
      bar?.update(monthsDone, { status: `${reason === 'pacing' ? 'pacing to the rate limit' : 'backing off'}: waiting ${Math.ceil(ms / 1000)} s` });
    },
  };
  try {
    // The months are known up front (and the flags checked) before anything is sent.
    bar = progress(planRequest(options).months.length, 'fetching', { unit: 'months' });
    bar.update(0, { status: 'starting' });
    const { records, settledThrough, missingDays, restatedDays } = await fetchDailyStats(options);
    bar?.stop();
    await write(formatRecords(records, plan.format));
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    process.stderr.write(`data-fetch: ${records.length} days from ${plan.from} to ${plan.to}; ${counter.requests} requests, ${fromCache} months from cache (304), ${seconds} s\n`);
    process.stderr.write(`data-fetch: ${describeSettlement(settledThrough, missingDays)}\n`);
    const restated = describeRestated(restatedDays);
    if (restated !== undefined) process.stderr.write(`data-fetch: ${restated}\n`);
    return EXIT.ok;
  } catch (error) {
    bar?.stop();
    const interruptedBy = interrupt.by();
    if (interruptedBy !== undefined) {
      process.stderr.write(`data-fetch: interrupted by ${interruptedBy}\n`);
      return interruptedBy === 'SIGINT' ? 130 : 143;
    }
    const code = exitCodeFor(error);
    if (code === EXIT.usage) throw new UsageError(describeFailure(error));
    // A bug: run-cli prints it with its stack.
    if (code === EXIT.software) throw error;
    const resumable = error instanceof DailyQuotaExceededError && plan.cacheDir !== undefined ? ` (months fetched so far are kept in ${plan.cacheDir}; revalidating them costs no daily quota)` : '';
    process.stderr.write(`data-fetch: ${describeFailure(error)}${resumable}\n`);
    return code;
  } finally {
    interrupt.dispose();
  }
}

/** Write to stdout and wait until it is flushed; a reader that went away (`| head`) is not an error. */
function write(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // Without a listener an EPIPE would also surface as an uncaught 'error' event.
    process.stdout.once('error', () => {});
    process.stdout.write(text, (error) => {
      if (error && (error as NodeJS.ErrnoException).code !== 'EPIPE') reject(error);
      else resolve();
    });
  });
}

// Run only as a program: tests import the pure parts above.
if (import.meta.main) process.exitCode = await runCli('data-fetch', USAGE, main);
