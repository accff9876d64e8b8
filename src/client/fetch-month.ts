/**
 * One request month of the data client, end to end: pacing, the request (conditional when the
 * month has a stored answer), retries with backoff, and the answer turned into records or a
 * typed error (docs/interface.md sections 3, 5, 6 and 7).
 */
import { nextUtcMidnight } from '../lib/calendar.ts';
import { recordsOf, type DataRecord } from './data-record.ts';
import type { MonthRange } from './month-ranges.ts';
import { DailyQuotaExceededError, InvalidRequestError, RateLimitedError, ServerUnavailableError, UnauthorizedError, UnexpectedResponseError } from './errors.ts';
import type { Pacer } from './pacer.ts';
import { sleep } from './pacer.ts';
import { isDailyQuotaRefusal, parseRetryAfterMs, readRateHeaders, type RateObservation } from './rate-headers.ts';
import { retryDelay, type RetryPolicy } from './retry-policy.ts';
import { parseSettledThrough } from './settled-days.ts';
import { requestUrl, type StoredAnswer } from './month-cache.ts';

/**
 * The `fetch` the client needs; the platform's fetch is one. `cache` is only ever `no-cache`,
 * and only in a browser (see `Plan.conditional` in data-client.ts).
 */
export type FetchLike = (url: string, init: { signal: AbortSignal; headers: Record<string, string>; cache?: 'no-cache' }) => Promise<Response>;

/** Reported before the client sleeps because of the limits or a failure. */
export interface WaitNotice {
  /** `pacing`: the headers say the minute window is spent; `backoff`: after a 429 or a failed attempt. */
  reason: 'pacing' | 'backoff';
  /** How long, in ms. */
  ms: number;
  /** The month that is waiting. */
  month: MonthRange;
}

export interface MonthContext {
  plan: { endpoint: URL; retry: RetryPolicy; token: string | undefined; conditional: boolean };
  pacer: Pacer;
  fetch: FetchLike;
  signal: AbortSignal;
  random: () => number;
  onWait: ((notice: WaitNotice) => void) | undefined;
}

/** The `message` of a `{code, message}` error body, if it is one. */
async function errorBody(response: Response): Promise<{ code?: string; message?: string }> {
  try {
    const body: unknown = JSON.parse(await response.text());
    if (typeof body !== 'object' || body === null) return {};
    const { code, message } = body as Record<string, unknown>;
    return { ...(typeof code === 'string' ? { code } : {}), ...(typeof message === 'string' ? { message } : {}) };
  } catch {
    return {};
  }
}

/** What one month's answer said. */
export interface MonthAnswer {
  /** The month's records: the stored ones after a 304. */
  records: DataRecord[];
  /** Its ETag; undefined when the server sent none (then it cannot be revalidated). */
  etag: string | undefined;
  /** X-Data-Settled-Through as an epoch day; undefined when the server did not send it. */
  settledThrough: number | undefined;
  /** True when the server answered 304 Not Modified: the stored answer is current. */
  notModified: boolean;
}

/** The `error` parameter of a Bearer challenge (RFC 6750 section 3), e.g. `invalid_token`. */
export function bearerError(challenge: string | null): string | undefined {
  return challenge?.match(/\berror="?([\w.-]+)"?/i)?.[1];
}

/** One attempt's outcome: the month's answer, or how long to wait before the next attempt. */
type Attempt = { answer: MonthAnswer } | { retryInMs: number };

/** What one attempt needs to know besides the response. */
interface AttemptContext {
  url: string;
  month: MonthRange;
  context: MonthContext;
  stored: StoredAnswer | undefined;
  attempt: number;
}

/** A transient failure (no connection, a broken body, a 5xx): wait and try again, or give up. */
function transient(a: AttemptContext, status: number | undefined, error: unknown, retryAfterMs?: number): Attempt {
  const { plan, signal, random } = a.context;
  if (signal.aborted) throw signal.reason;
  if (a.attempt >= plan.retry.maxAttempts) throw new ServerUnavailableError(plan.endpoint.href, a.attempt, status, error);
  return { retryInMs: retryDelay(a.attempt, retryAfterMs, plan.retry, random) };
}

/** A 200's records, or a retry when the connection broke mid-body. */
async function recordsAnswer(response: Response, a: AttemptContext): Promise<Attempt> {
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The connection broke mid-body: as transient as a failed connect.
    return transient(a, undefined, error);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new UnexpectedResponseError(a.url, 200, `the body is not JSON (${response.headers.get('content-type') ?? 'no content type'})`);
  }
  const records = recordsOf(body, a.month);
  if (typeof records === 'string') throw new UnexpectedResponseError(a.url, 200, records);
  const settledThrough = parseSettledThrough(response.headers.get('x-data-settled-through'));
  return { answer: { records, etag: response.headers.get('etag') ?? undefined, settledThrough, notModified: false } };
}

/** What a refusal (4xx other than 304) means: a thrown error, or a retry after a 429. */
async function refusal(response: Response, seen: RateObservation, a: AttemptContext): Promise<Attempt> {
  const { plan, random } = a.context;
  if (response.status === 401) {
    const { code, message } = await errorBody(response);
    throw new UnauthorizedError(401, plan.token !== undefined, bearerError(response.headers.get('www-authenticate')), code, message);
  }
  if (response.status === 429) {
    const { message } = await errorBody(response);
    if (isDailyQuotaRefusal(seen, message)) {
      // The quota is per UTC day: it starts over at the next 00:00 UTC by the server's clock.
      throw new DailyQuotaExceededError(new Date(nextUtcMidnight(seen.serverNowMs)));
    }
    if (a.attempt >= plan.retry.maxAttempts) throw new RateLimitedError(a.attempt, seen.retryAfterMs);
    return { retryInMs: retryDelay(a.attempt, seen.retryAfterMs, plan.retry, random) };
  }
  if (response.status === 400) {
    const { code, message } = await errorBody(response);
    if (code !== undefined && message !== undefined) throw new InvalidRequestError(400, code, message, `${a.month.startDate} to ${a.month.endDate}`);
    throw new UnexpectedResponseError(a.url, 400, 'a 400 without the {code, message} body of the data interface');
  }
  await response.body?.cancel().catch(() => {});
  throw new UnexpectedResponseError(a.url, response.status, response.status === 404 ? '404 Not Found: is the base URL the data service?' : `status ${response.status}`);
}

/** One request of the month and what its response means. */
async function attemptOnce(init: Parameters<FetchLike>[1], a: AttemptContext): Promise<Attempt> {
  const { pacer } = a.context;
  let response: Response;
  try {
    response = await a.context.fetch(a.url, init);
  } catch (error) {
    pacer.report(undefined);
    return transient(a, undefined, error);
  }
  const seen = readRateHeaders(response.headers, response.status, performance.now(), Date.now());
  pacer.report(seen);
  if (response.status === 200) return recordsAnswer(response, a);
  if (response.status === 304 && a.stored !== undefined) {
    await response.body?.cancel().catch(() => {});
    const answer: MonthAnswer = {
      records: a.stored.records,
      // A 304 carries the ETag a 200 would (RFC 9110 section 15.4.5), for example another content coding's.
      etag: response.headers.get('etag') ?? a.stored.etag,
      settledThrough: parseSettledThrough(response.headers.get('x-data-settled-through')),
      notModified: true,
    };
    return { answer };
  }
  if (response.status >= 500) {
    await response.body?.cancel().catch(() => {});
    return transient(a, response.status, undefined, parseRetryAfterMs(response.headers.get('retry-after'), seen.serverNowMs));
  }
  return refusal(response, seen, a);
}

/**
 * One month, with pacing and retries. With `stored` (its last answer, kept by the caller) the
 * request is conditional: a 304 hands back the stored records, a 200 the new ones.
 */
export async function fetchMonth(month: MonthRange, context: MonthContext, stored?: StoredAnswer): Promise<MonthAnswer> {
  const { plan, pacer, signal } = context;
  const url = requestUrl(plan.endpoint, month);
  // Only safelisted request headers without a token: a cross-origin browser call then needs no
  // preflight (Fetch standard, CORS-safelisted request headers), which would cost a request of
  // its own. With a token, Authorization (RFC 6750 section 2.1) makes one necessary. Neither is
  // If-None-Match, so the caller stores nothing where it would add one (`plan.conditional`).
  const headers: Record<string, string> = { accept: 'application/json' };
  if (plan.token !== undefined) headers['authorization'] = `Bearer ${plan.token}`;
  if (stored !== undefined) headers['if-none-match'] = stored.etag;
  const init: Parameters<FetchLike>[1] = plan.conditional ? { signal, headers } : { signal, headers, cache: 'no-cache' };
  for (let attempt = 1; ; attempt++) {
    await pacer.acquire(signal, (ms) => context.onWait?.({ reason: 'pacing', ms, month }));
    const outcome = await attemptOnce(init, { url, month, context, stored, attempt });
    if ('answer' in outcome) return outcome.answer;
    context.onWait?.({ reason: 'backoff', ms: outcome.retryInMs, month });
    await sleep(outcome.retryInMs, signal);
  }
}
