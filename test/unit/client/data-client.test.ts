/**
 * getDailyStats against a fake fetch: request planning, the error family, retries, caching and
 * cancellation, without a network. The same paths against the real server are in
 * test/integration/client/data-client.test.ts.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  DailyQuotaExceededError,
  fetchDailyStats,
  getDailyStats,
  InvalidArgumentError,
  InvalidRequestError,
  planRequest,
  RateLimitedError,
  ServerUnavailableError,
  UnauthorizedError,
  UnexpectedResponseError,
  monthCacheKey,
  type DataRecord,
  type FetchLike,
  type GetDailyStatsOptions,
  type StoredAnswer,
  type WaitNotice,
} from '../../../src/client/data-client.ts';
import type { DataRecord as ServerDataRecord } from '../../../src/features/stats/data-record.ts';

const BASE = 'https://data.example';
/** 2026-03-20 12:00 UTC: windows ending on or before 03-16 are settled. */
const NOW = Date.UTC(2026, 2, 20, 12);
const now = () => NOW;
const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 1, maxDelayMs: 2 };

interface Reply {
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A record for every day of the asked window, with figures derived from the date. */
function fullWindow(url: URL): DataRecord[] {
  const records: DataRecord[] = [];
  const start = Date.parse(`${url.searchParams.get('startDate')}T00:00:00Z`);
  const end = Date.parse(`${url.searchParams.get('endDate')}T00:00:00Z`);
  for (let t = start; t <= end; t += 86_400_000) {
    const date = new Date(t).toISOString().slice(0, 10);
    const n = Number(date.slice(8, 10));
    records.push({ date, txn_count: n, impr_count: n * 10, service_revenue: n + 0.25 });
  }
  return records;
}

const ok = (url: URL): Reply => ({ body: { status: 'Success', data: fullWindow(url) } });

type Init = Parameters<FetchLike>[1];

/** A fetch that answers from `reply` and records every URL it was asked for, and how. */
function fakeFetch(reply: (url: URL, call: number, init: Init) => Reply | Error | Promise<Reply | Error> = ok) {
  const calls: string[] = [];
  const inits: Init[] = [];
  let active = 0;
  let maxActive = 0;
  const fetch: FetchLike = async (url, init) => {
    calls.push(url);
    inits.push(init);
    active++;
    maxActive = Math.max(maxActive, active);
    try {
      init.signal.throwIfAborted();
      const r = await reply(new URL(url), calls.length, init);
      init.signal.throwIfAborted();
      if (r instanceof Error) throw r;
      return new Response(r.body === undefined ? null : typeof r.body === 'string' ? r.body : JSON.stringify(r.body), {
        status: r.status ?? 200,
        headers: { 'content-type': 'application/json', ...r.headers },
      });
    } finally {
      active--;
    }
  };
  return {
    fetch,
    calls,
    inits,
    get maxActive() {
      return maxActive;
    },
  };
}

/**
 * A fetch answering as the server does with validators: the records of `figures`, a strong ETag
 * that is a digest of the body, 304 to a matching If-None-Match, and `headers` on both.
 */
function validatingFetch(figures: (url: URL) => DataRecord[] = fullWindow, headers: Record<string, string> = {}) {
  return fakeFetch((url, _call, init) => {
    const body = JSON.stringify({ status: 'Success', data: figures(url) });
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    if (init.headers['if-none-match'] === etag) return { status: 304, headers: { etag, ...headers } };
    return { body, headers: { etag, ...headers } };
  });
}

const options = (fetch: FetchLike, extra: Partial<GetDailyStatsOptions> = {}): GetDailyStatsOptions => ({
  from: '2025-01-01',
  to: '2025-01-31',
  baseUrl: BASE,
  fetch,
  now,
  cache: false,
  retry: FAST_RETRY,
  ...extra,
});

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('inputs', () => {
  it('refuses wrong options with a message naming the option, before any request', async () => {
    const fake = fakeFetch();
    const refusal = (extra: Partial<GetDailyStatsOptions>) => getDailyStats(options(fake.fetch, extra)).catch((e: unknown) => e);
    const messages = await Promise.all(
      [
        { from: '2025-1-01' },
        { to: '2025-02-30' },
        { from: '2025-03-01', to: '2025-02-01' },
        { baseUrl: 'data.example' },
        { baseUrl: 'ftp://data.example' },
        { concurrency: 0 },
        { concurrency: 2.5 },
        { retry: { maxAttempts: 0 } },
        { token: 'sk live secret' },
      ].map(async (extra) => {
        const error = await refusal(extra);
        expect(error).toBeInstanceOf(InvalidArgumentError);
        return (error as Error).message;
      }),
    );
    expect(messages).toMatchInlineSnapshot(`
      [
        "from must be a date in YYYY-MM-DD format, got "2025-1-01"",
        "to "2025-02-30" is not a calendar date",
        "to 2025-02-01 is before from 2025-03-01",
        "baseUrl must be an absolute http(s) URL, got "data.example"",
        "baseUrl must be an http(s) URL, got "ftp:"",
        "concurrency must be a whole number from 1 to 8, got 0",
        "concurrency must be a whole number from 1 to 8, got 2.5",
        "retry.maxAttempts must be a whole number from 1 to 20, got 0",
        "token must be an API key of letters, digits and - . _ ~ + / (then = padding), as RFC 6750 allows after "Bearer "",
      ]
    `);
    expect(fake.calls).toEqual([]);
  });

  it('names the option at fault on the error, for callers that map it to their own words', async () => {
    const error = await getDailyStats(options(fakeFetch().fetch, { to: 'tomorrow' })).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'invalid_argument', argument: 'to', detail: 'must be a date in YYYY-MM-DD format, got "tomorrow"' });
  });
});

describe('requests', () => {
  it('asks one calendar month per request and returns every day in ascending order', async () => {
    const fake = fakeFetch();
    const records = await getDailyStats(options(fake.fetch, { from: '2024-01-15', to: '2024-03-10' }));
    expect(fake.calls.sort()).toEqual([
      `${BASE}/api/v1/public/data?startDate=2024-01-15&endDate=2024-01-31`,
      `${BASE}/api/v1/public/data?startDate=2024-02-01&endDate=2024-02-29`,
      `${BASE}/api/v1/public/data?startDate=2024-03-01&endDate=2024-03-10`,
    ]);
    expect(records).toHaveLength(17 + 29 + 10);
    expect(records.map((r) => r.date)).toEqual(records.map((r) => r.date).sort());
    expect(records[0]).toEqual({ date: '2024-01-15', txn_count: 15, impr_count: 150, service_revenue: 15.25 });
  });

  it('keeps a path prefix of the base URL and drops its query', async () => {
    expect(planRequest(options(fakeFetch().fetch, { baseUrl: 'https://x.example/stats?x=1' })).endpoint.href).toBe('https://x.example/stats/api/v1/public/data');
    expect(planRequest(options(fakeFetch().fetch, { baseUrl: 'https://x.example/stats/' })).endpoint.href).toBe('https://x.example/stats/api/v1/public/data');
    expect(planRequest(options(fakeFetch().fetch, { baseUrl: new URL('http://127.0.0.1:4321') })).endpoint.href).toBe('http://127.0.0.1:4321/api/v1/public/data');
  });

  it('never has more requests out than the concurrency, and uses all of it', async () => {
    for (const concurrency of [undefined, 1, 3]) {
      const fake = fakeFetch(async (url) => {
        await delay(5);
        return ok(url);
      });
      await getDailyStats(options(fake.fetch, { from: '2025-01-01', to: '2025-12-31', concurrency }));
      expect(fake.calls).toHaveLength(12);
      expect(fake.maxActive).toBe(concurrency ?? 2);
    }
  });

  it('reports progress after every window', async () => {
    const seen: string[] = [];
    await getDailyStats(
      options(fakeFetch().fetch, {
        from: '2025-01-01',
        to: '2025-03-31',
        concurrency: 1,
        onProgress: ({ done, total, month, fromCache }) => seen.push(`${done}/${total} ${month.startDate} ${fromCache}`),
      }),
    );
    expect(seen).toEqual(['1/3 2025-01-01 false', '2/3 2025-02-01 false', '3/3 2025-03-01 false']);
  });
});

describe('errors', () => {
  it('surfaces a 400 SVC1005 as InvalidRequestError with the server’s message', async () => {
    const fake = fakeFetch(() => ({ status: 400, body: { code: 'SVC1005', message: 'startDate must be a date in YYYY-MM-DD format, got "x"' } }));
    const error = await getDailyStats(options(fake.fetch)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error).toMatchObject({ serverCode: 'SVC1005', serverMessage: 'startDate must be a date in YYYY-MM-DD format, got "x"', status: 400 });
    expect((error as Error).message).toMatchInlineSnapshot(`"the data API refused 2025-01-01 to 2025-01-31: startDate must be a date in YYYY-MM-DD format, got "x" (SVC1005)"`);
    expect(fake.calls).toHaveLength(1);
  });

  it('sends a token as Authorization: Bearer, and none without one', async () => {
    const seen: Array<string | undefined> = [];
    const fetch: FetchLike = async (url, init) => {
      seen.push(init.headers['authorization']);
      return new Response(JSON.stringify(ok(new URL(url)).body), { status: 200 });
    };
    await getDailyStats(options(fetch, { token: 'dk_live.AbC-123~x+y/z==' }));
    await getDailyStats(options(fetch));
    expect(seen).toEqual(['Bearer dk_live.AbC-123~x+y/z==', undefined]);
  });

  it('surfaces a refused token (401, Bearer invalid_token) as UnauthorizedError at once, without the token', async () => {
    const fake = fakeFetch(() => ({
      status: 401,
      body: { code: 'unauthorized', message: 'the API key is not valid' },
      headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="unknown key"' },
    }));
    const error = await getDailyStats(options(fake.fetch, { token: 'dk_secret_value', from: '2025-01-01', to: '2025-03-31' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ code: 'unauthorized', status: 401, challengeError: 'invalid_token', serverCode: 'unauthorized', serverMessage: 'the API key is not valid' });
    expect((error as Error).message).toMatchInlineSnapshot(`"the data API refused the API token (401): the API key is not valid (unauthorized, invalid_token)"`);
    expect(JSON.stringify({ ...(error as object), message: (error as Error).message })).not.toContain('dk_secret_value');
    // Not retried, and the other windows stop.
    expect(fake.calls.length).toBeLessThanOrEqual(2);
  });

  it('stops with DailyQuotaExceededError, reset at the next 00:00 UTC, on a 429 that left no daily quota', async () => {
    const fake = fakeFetch(() => ({
      status: 429,
      body: { code: 'SVC1010', message: 'rate limit exceeded: too many requests' },
      headers: { 'X-Daily-Quota-Remaining': '0', 'Retry-After': '3600', Date: new Date(Date.UTC(2026, 2, 20, 23)).toUTCString() },
    }));
    const error = await getDailyStats(options(fake.fetch)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DailyQuotaExceededError);
    expect((error as DailyQuotaExceededError).resetsAt.toISOString()).toBe('2026-03-21T00:00:00.000Z');
    expect((error as Error).message).toMatchInlineSnapshot(`"the daily request quota of the data API is spent; it resets at 2026-03-21T00:00:00.000Z (00:00 UTC)"`);
    expect(fake.calls).toHaveLength(1);
  });

  it('recognises the daily quota from the message when the header is missing', async () => {
    const fake = fakeFetch(() => ({ status: 429, body: { code: 'SVC1010', message: 'rate limit exceeded: the daily quota is spent; it resets at 00:00 UTC, in 5 seconds' } }));
    await expect(getDailyStats(options(fake.fetch))).rejects.toBeInstanceOf(DailyQuotaExceededError);
    expect(fake.calls).toHaveLength(1);
  });

  it('stops before sending once a response says the daily quota is spent', async () => {
    const fake = fakeFetch((url) => ({ ...ok(url), headers: { 'X-Daily-Quota-Remaining': '0', 'X-RateLimit-Remaining': '50' } }));
    const error = await getDailyStats(options(fake.fetch, { from: '2025-01-01', to: '2025-03-31', concurrency: 1 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DailyQuotaExceededError);
    expect(fake.calls).toHaveLength(1);
  });

  it('finishes without error when the last request spends the daily quota', async () => {
    const fake = fakeFetch((url) => ({ ...ok(url), headers: { 'X-Daily-Quota-Remaining': '0' } }));
    await expect(getDailyStats(options(fake.fetch))).resolves.toHaveLength(31);
  });

  it('retries a minute-window 429 after Retry-After, then succeeds', async () => {
    const waits: WaitNotice[] = [];
    const fake = fakeFetch((url, call) =>
      call === 1 ? { status: 429, body: { code: 'SVC1010', message: 'rate limit exceeded' }, headers: { 'Retry-After': '0', 'X-Daily-Quota-Remaining': '40' } } : ok(url),
    );
    const records = await getDailyStats(options(fake.fetch, { onWait: (notice) => waits.push(notice) }));
    expect(records).toHaveLength(31);
    expect(fake.calls).toHaveLength(2);
    expect(waits.map((w) => w.reason)).toEqual(['backoff']);
  });

  it('gives up with RateLimitedError after the allowed attempts', async () => {
    const fake = fakeFetch(() => ({ status: 429, body: { code: 'SVC1010', message: 'rate limit exceeded' }, headers: { 'Retry-After': '0' } }));
    const error = await getDailyStats(options(fake.fetch)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error).toMatchObject({ attempts: 3, retryAfterMs: 0 });
    expect(fake.calls).toHaveLength(3);
  });

  it('retries 5xx answers and network failures, then reports the server unavailable', async () => {
    const flaky = fakeFetch((url, call) => (call === 1 ? new TypeError('fetch failed') : call === 2 ? { status: 503 } : ok(url)));
    await expect(getDailyStats(options(flaky.fetch))).resolves.toHaveLength(31);
    expect(flaky.calls).toHaveLength(3);

    const down = fakeFetch(() => ({ status: 502 }));
    const error = await getDailyStats(options(down.fetch)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServerUnavailableError);
    expect(error).toMatchObject({ status: 502, attempts: 3 });

    const refused = Object.assign(new TypeError('fetch failed'), { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    const unreachable = fakeFetch(() => refused);
    const failure = await getDailyStats(options(unreachable.fetch)).catch((e: unknown) => e);
    expect((failure as Error).message).toMatchInlineSnapshot(`"the data API at https://data.example/api/v1/public/data could not be reached (fetch failed: connect ECONNREFUSED 127.0.0.1:9) on 3 attempts"`);
    expect((failure as Error).cause).toBe(refused);
  });

  it('retries when the connection breaks in the middle of a body', async () => {
    let calls = 0;
    const fetch: FetchLike = async (url) => {
      calls++;
      if (calls > 1) return new Response(JSON.stringify(ok(new URL(url)).body), { status: 200 });
      const broken = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"status":"Succ'));
          controller.error(new TypeError('terminated'));
        },
      });
      return new Response(broken, { status: 200 });
    };
    await expect(getDailyStats(options(fetch))).resolves.toHaveLength(31);
    expect(calls).toBe(2);
  });

  it('refuses a body that is not a DataResponse for the asked window', async () => {
    const cases: Reply[] = [
      { body: '<html>' },
      { body: { status: 'Error', data: [] } },
      { body: { status: 'Success', data: [{ date: '2025-02-01', txn_count: 1, impr_count: 1, service_revenue: 1 }] } },
      { body: { status: 'Success', data: [{ date: '2025-01-02', txn_count: -1, impr_count: 1, service_revenue: 1 }] } },
      { status: 404, body: { code: 'not_found', message: 'No API resource' } },
    ];
    const messages: string[] = [];
    for (const reply of cases) {
      const error = await getDailyStats(options(fakeFetch(() => reply).fetch)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UnexpectedResponseError);
      messages.push((error as Error).message.replace(/^unexpected answer from \S+: /, ''));
    }
    expect(messages).toMatchInlineSnapshot(`
      [
        "the body is not JSON (application/json)",
        "status is "Error", not "Success"",
        "data[0].date "2025-02-01" is not a day from 2025-01-01 to 2025-01-31",
        "data[0] (2025-01-02) has a count that is not a non-negative integer",
        "404 Not Found: is the base URL the data service?",
      ]
    `);
  });

  it('keeps the documented fields only', async () => {
    const fake = fakeFetch(() => ({ body: { status: 'Success', data: [{ date: '2025-01-02', txn_count: 1, impr_count: 2, service_revenue: 3.5, extra: 'x' }] } }));
    expect(await getDailyStats(options(fake.fetch))).toEqual([{ date: '2025-01-02', txn_count: 1, impr_count: 2, service_revenue: 3.5 }]);
  });
});

describe('cancellation', () => {
  it('rejects at once with the signal’s reason when already aborted, sending nothing', async () => {
    const fake = fakeFetch();
    const controller = new AbortController();
    controller.abort();
    const error = await getDailyStats(options(fake.fetch, { signal: controller.signal })).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(fake.calls).toEqual([]);
  });

  it('cuts a pacing wait short and sends nothing more', async () => {
    const fake = fakeFetch((url) => ({
      ...ok(url),
      headers: { 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(Math.ceil(Date.now() / 1000) + 60), 'X-Daily-Quota-Remaining': '100' },
    }));
    const controller = new AbortController();
    const waits: WaitNotice[] = [];
    const result = getDailyStats(
      options(fake.fetch, {
        from: '2025-01-01',
        to: '2025-03-31',
        concurrency: 1,
        signal: controller.signal,
        onWait: (notice) => {
          waits.push(notice);
          controller.abort();
        },
      }),
    );
    const error = await result.catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatchObject({ reason: 'pacing' });
    expect(waits[0]!.ms).toBeGreaterThan(50_000);
    expect(fake.calls).toHaveLength(1);
  });

  it('aborts the requests in flight', async () => {
    const controller = new AbortController();
    let aborted = 0;
    const fetch: FetchLike = (_url, init) =>
      new Promise((_resolve, reject) => {
        init.signal.addEventListener('abort', () => {
          aborted++;
          reject(init.signal.reason);
        });
      });
    const result = getDailyStats(options(fetch, { from: '2025-01-01', to: '2025-12-31', signal: controller.signal }));
    await delay(5);
    controller.abort(new Error('user closed the page'));
    await expect(result).rejects.toThrow('user closed the page');
    expect(aborted).toBe(2);
  });
});

describe('cache', () => {
  const MONTHS = { from: '2026-01-01', to: '2026-03-19' };
  const url = (startDate: string, endDate: string) => `${BASE}/api/v1/public/data?startDate=${startDate}&endDate=${endDate}`;

  it('keeps each window’s answer with its ETag and revalidates it on every call: a 304 hands back the stored records', async () => {
    const fake = validatingFetch();
    const cache = new Map<string, StoredAnswer>();
    const first = await getDailyStats(options(fake.fetch, { ...MONTHS, cache }));
    expect(fake.calls).toHaveLength(3);
    expect([...cache.keys()].sort()).toEqual([url('2026-01-01', '2026-01-31'), url('2026-02-01', '2026-02-28'), url('2026-03-01', '2026-03-19')]);
    // The whole window is kept, days not settled yet included: they are revalidated like the rest.
    const march = cache.get(url('2026-03-01', '2026-03-19'))!;
    expect(march.records.at(-1)?.date).toBe('2026-03-19');
    expect(march.etag).toMatch(/^"[\w-]{27}"$/);
    // No X-Data-Settled-Through from this fake: the client's clock says 03-16 (today 03-20 minus 4).
    expect(march.settledThrough).toBe('2026-03-16');
    expect(cache.get(url('2026-01-01', '2026-01-31'))!.settledThrough).toBe('2026-01-31');

    fake.calls.length = 0;
    fake.inits.length = 0;
    const progress: boolean[] = [];
    const second = await fetchDailyStats(options(fake.fetch, { ...MONTHS, cache, concurrency: 1, onProgress: (p) => progress.push(p.fromCache) }));
    expect(second.records).toEqual(first);
    expect(second.restatedDays).toEqual([]);
    expect(fake.calls).toEqual([url('2026-01-01', '2026-01-31'), url('2026-02-01', '2026-02-28'), url('2026-03-01', '2026-03-19')]);
    expect(fake.inits.map((init) => init.headers['if-none-match'])).toEqual([...cache.values()].map((answer) => answer.etag));
    expect(progress).toEqual([true, true, true]);
  });

  it('replaces a window the server changed, and names the days that were settled when cached as restated', async () => {
    const changes = new Map<string, Partial<DataRecord>>();
    const fake = validatingFetch((url) => fullWindow(url).map((record) => ({ ...record, ...changes.get(record.date) })));
    const cache = new Map<string, StoredAnswer>();
    await getDailyStats(options(fake.fetch, { ...MONTHS, cache }));
    // An operator restates January 15th (settled); the nightly run updates March 18th (not settled).
    changes.set('2026-01-15', { txn_count: 67 });
    changes.set('2026-03-18', { impr_count: 1 });
    const progress: boolean[] = [];
    const second = await fetchDailyStats(options(fake.fetch, { ...MONTHS, cache, concurrency: 1, onProgress: (p) => progress.push(p.fromCache) }));
    expect(progress).toEqual([false, true, false]);
    expect(second.restatedDays).toEqual(['2026-01-15']);
    expect(second.records.find((record) => record.date === '2026-01-15')).toEqual({ date: '2026-01-15', txn_count: 67, impr_count: 150, service_revenue: 15.25 });
    expect(second.records.find((record) => record.date === '2026-03-18')?.impr_count).toBe(1);
    expect(cache.get(url('2026-01-01', '2026-01-31'))!.records[14]?.txn_count).toBe(67);

    const third = await fetchDailyStats(options(fake.fetch, { ...MONTHS, cache }));
    expect(third).toMatchObject({ records: second.records, restatedDays: [] });
  });

  it('honours the server’s X-Data-Settled-Through over its own clock, from a 304 too', async () => {
    const changes = new Map<string, Partial<DataRecord>>();
    const fake = validatingFetch((url) => fullWindow(url).map((record) => ({ ...record, ...changes.get(record.date) })), { 'x-data-settled-through': '2026-01-10' });
    const cache = new Map<string, StoredAnswer>();
    const first = await fetchDailyStats(options(fake.fetch, { from: '2026-01-01', to: '2026-02-28', cache }));
    expect(first).toMatchObject({ settledThrough: '2026-01-10', missingDays: [], restatedDays: [] });
    expect([...cache.values()].map((answer) => answer.settledThrough)).toEqual(['2026-01-10', '2026-01-10']);
    expect(await fetchDailyStats(options(fake.fetch, { from: '2026-01-01', to: '2026-02-28', cache }))).toMatchObject({ settledThrough: '2026-01-10', restatedDays: [] });
    // The clock (03-20) would settle both months; the server says only up to 01-10.
    changes.set('2026-01-05', { txn_count: 0 });
    changes.set('2026-01-15', { txn_count: 0 });
    expect((await fetchDailyStats(options(fake.fetch, { from: '2026-01-01', to: '2026-02-28', cache }))).restatedDays).toEqual(['2026-01-05']);
  });

  it('reports the days without a record', async () => {
    const gap = new Set(['2025-01-05', '2025-01-30', '2025-01-31']);
    const fake = validatingFetch((url) => fullWindow(url).filter((record) => !gap.has(record.date)), { 'x-data-settled-through': '2025-06-01', 'x-data-missing-days': '2025-01-05, 2025-01-30/2025-01-31' });
    const cache = new Map<string, StoredAnswer>();
    const result = await fetchDailyStats(options(fake.fetch, { cache }));
    expect(result.records).toHaveLength(28);
    expect(result.missingDays).toEqual(['2025-01-05', '2025-01-30', '2025-01-31']);
    // From the cache (304) alike.
    expect(await fetchDailyStats(options(fake.fetch, { cache }))).toEqual(result);
  });

  it('keeps no answer that came without an ETag: there is nothing to revalidate it with', async () => {
    const fake = fakeFetch();
    const cache = new Map<string, StoredAnswer>();
    await getDailyStats(options(fake.fetch, { cache }));
    await getDailyStats(options(fake.fetch, { cache }));
    expect(cache.size).toBe(0);
    expect(fake.inits.map((init) => init.headers['if-none-match'])).toEqual([undefined, undefined]);
  });

  it('refuses a 304 to a request it did not make conditional', async () => {
    const error = await getDailyStats(options(fakeFetch(() => ({ status: 304 })).fetch)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnexpectedResponseError);
    expect(error).toMatchObject({ status: 304 });
  });

  it('hands out copies, so a caller changing its result cannot change the cache', async () => {
    const cache = new Map<string, StoredAnswer>();
    const first = await getDailyStats(options(validatingFetch().fetch, { cache }));
    first[0]!.txn_count = 999_999;
    const second = await getDailyStats(options(validatingFetch().fetch, { cache }));
    expect(second[0]!.txn_count).toBe(1);
    second[0]!.txn_count = 999_999;
    expect((await getDailyStats(options(validatingFetch().fetch, { cache })))[0]!.txn_count).toBe(1);
  });

  it('treats a failing or corrupt cache as a miss, asked for without a validator', async () => {
    const broken = { get: () => Promise.reject(new Error('disk gone')), set: () => Promise.reject(new Error('disk gone')) };
    await expect(getDailyStats(options(validatingFetch().fetch, { cache: broken }))).resolves.toHaveLength(31);
    const key = monthCacheKey(new URL(`${BASE}/api/v1/public/data`), { startDate: '2025-01-01', endDate: '2025-01-31', start: 0, end: 30, days: 31 });
    const record = { date: '2025-01-01', txn_count: 1, impr_count: 10, service_revenue: 1.25 };
    const corrupt: unknown[] = [
      [record], // the records of an older client, without an ETag
      { etag: 'unquoted', records: [record] },
      { etag: '"x"', records: [{ ...record, date: 'bad' }] },
      { etag: '"x"', settledThrough: '2025-02-30', records: [record] },
    ];
    for (const entry of corrupt) {
      const cache = new Map<string, unknown>([[key, entry]]);
      const again = validatingFetch();
      await expect(getDailyStats(options(again.fetch, { cache: cache as Map<string, StoredAnswer> }))).resolves.toHaveLength(31);
      expect(again.inits.map((init) => init.headers['if-none-match'])).toEqual([undefined]);
      expect((cache.get(key) as StoredAnswer).records).toHaveLength(31);
    }
  });

  it('from a page of another origin without a token, keeps nothing and lets the browser revalidate, since If-None-Match would need a preflight', async () => {
    const page = globalThis as { location?: { origin: string } };
    page.location = { origin: 'https://app.example' };
    try {
      const cache = new Map<string, StoredAnswer>();
      const fake = validatingFetch();
      await getDailyStats(options(fake.fetch, { cache }));
      await getDailyStats(options(fake.fetch, { cache }));
      expect(cache.size).toBe(0);
      expect(fake.inits.map((init) => [init.headers['if-none-match'], init.cache])).toEqual([[undefined, 'no-cache'], [undefined, 'no-cache']]);

      // With a token the call is preflighted anyway; from the API's own origin it never is.
      for (const extra of [{ token: 'adk_x' }, { baseUrl: 'https://app.example' }]) {
        const own = validatingFetch();
        const ownCache = new Map<string, StoredAnswer>();
        await getDailyStats(options(own.fetch, { cache: ownCache, ...extra }));
        await getDailyStats(options(own.fetch, { cache: ownCache, ...extra }));
        expect(own.inits.map((init) => [init.headers['if-none-match'] !== undefined, init.cache])).toEqual([[false, undefined], [true, undefined]]);
      }
    } finally {
      delete page.location;
    }
  });

  it('keys a window by server and range', () => {
    const window = { startDate: '2025-01-01', endDate: '2025-01-31', start: 0, end: 30, days: 31 };
    const key = (base: string) => monthCacheKey(planRequest(options(fakeFetch().fetch, { baseUrl: base })).endpoint, window);
    expect(key('https://data.example')).toBe('https://data.example/api/v1/public/data?startDate=2025-01-01&endDate=2025-01-31');
    expect(key('https://data.example/')).toBe(key('https://data.example'));
    expect(key('https://data.example:8443')).not.toBe(key('https://data.example'));
    expect(key('https://data.example/mirror')).not.toBe(key('https://data.example'));
    expect(monthCacheKey(new URL(`${BASE}/api/v1/public/data`), { ...window, endDate: '2025-01-30', end: 29, days: 30 })).not.toBe(key(BASE));
  });
});

describe('portability', () => {
  it('loads nothing outside src/client and src/lib and nothing Node-only, so browsers can bundle it', () => {
    const seen = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const source = readFileSync(file, 'utf8');
      for (const [, specifier] of source.matchAll(/^(?:import|export)\b[^'";]*?from\s+'([^']+)'/gm)) {
        // Siblings, or the pure shared modules of src/lib (the calendar, the public paths).
        expect(specifier, `${file} imports ${specifier}`).toMatch(basename(dirname(file)) === 'lib' ? /^\.\/[a-z-]+\.ts$/ : /^(\.\/|\.\.\/lib\/)[a-z-]+\.ts$/);
        visit(join(dirname(file), specifier!));
      }
    };
    visit(fileURLToPath(new URL('../../../src/client/data-client.ts', import.meta.url)));
    expect([...seen].map((file) => basename(file)).sort()).toEqual(['calendar.ts', 'data-client.ts', 'data-record.ts', 'errors.ts', 'fetch-month.ts', 'month-cache.ts', 'month-ranges.ts', 'pacer.ts', 'paths.ts', 'rate-headers.ts', 'rate-pacing.ts', 'request-plan.ts', 'retry-policy.ts', 'settled-days.ts']);
  });
});

describe('types', () => {
  it('hands out records of exactly the server’s DataRecord type', () => {
    expectTypeOf<DataRecord>().toEqualTypeOf<ServerDataRecord>();
  });
});
