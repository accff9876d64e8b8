/**
 * getDailyStats against a fake fetch: request planning, the error family, retries, caching and
 * cancellation, without a network. The same paths against the real server are in
 * test/integration/client.test.ts.
 */
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
  windowCacheKey,
  type DataRecord,
  type FetchLike,
  type GetDailyStatsOptions,
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

/** A fetch that answers from `reply` and records every URL it was asked for. */
function fakeFetch(reply: (url: URL, call: number) => Reply | Error | Promise<Reply | Error> = ok) {
  const calls: string[] = [];
  let active = 0;
  let maxActive = 0;
  const fetch: FetchLike = async (url, init) => {
    calls.push(url);
    active++;
    maxActive = Math.max(maxActive, active);
    try {
      init.signal.throwIfAborted();
      const r = await reply(new URL(url), calls.length);
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
    get maxActive() {
      return maxActive;
    },
  };
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
        onProgress: ({ done, total, window, fromCache }) => seen.push(`${done}/${total} ${window.startDate} ${fromCache}`),
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
  it('keeps the days up to the settled day and asks again only for the days after it', async () => {
    // No X-Data-Settled-Through from this fake: the client's clock says 03-16 (today 03-20 minus 4).
    const fake = fakeFetch();
    const cache = new Map<string, DataRecord[]>();
    const ask = () => getDailyStats(options(fake.fetch, { from: '2026-01-01', to: '2026-03-19', cache }));
    const first = await ask();
    expect(fake.calls).toHaveLength(3);
    expect([...cache.keys()].sort()).toEqual([
      `${BASE}/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-31`,
      `${BASE}/api/v1/public/data?startDate=2026-02-01&endDate=2026-02-28`,
      `${BASE}/api/v1/public/data?startDate=2026-03-01&endDate=2026-03-19`,
    ]);
    // March is kept up to its settled 16th; the 17th to 19th may still be rewritten.
    expect(cache.get(`${BASE}/api/v1/public/data?startDate=2026-03-01&endDate=2026-03-19`)?.at(-1)?.date).toBe('2026-03-16');
    fake.calls.length = 0;
    const progress: boolean[] = [];
    const second = await getDailyStats(options(fake.fetch, { from: '2026-01-01', to: '2026-03-19', cache, concurrency: 1, onProgress: (p) => progress.push(p.fromCache) }));
    expect(second).toEqual(first);
    expect(fake.calls).toEqual([`${BASE}/api/v1/public/data?startDate=2026-03-17&endDate=2026-03-19`]);
    expect(progress).toEqual([true, true, false]);
  });

  it('honours the server’s X-Data-Settled-Through over its own clock', async () => {
    const fake = fakeFetch((url) => ({ ...ok(url), headers: { 'x-data-settled-through': '2026-01-10' } }));
    const cache = new Map<string, DataRecord[]>();
    const first = await fetchDailyStats(options(fake.fetch, { from: '2026-01-01', to: '2026-02-28', cache }));
    expect(first.settledThrough).toBe('2026-01-10');
    expect(first.missingDays).toEqual([]);
    // The clock (03-20) would settle both months; the server says only up to 01-10.
    expect([...cache.values()].map((records) => [records[0]?.date, records.at(-1)?.date])).toEqual([['2026-01-01', '2026-01-10']]);
    fake.calls.length = 0;
    await getDailyStats(options(fake.fetch, { from: '2026-01-01', to: '2026-02-28', cache }));
    expect(fake.calls.sort()).toEqual([
      `${BASE}/api/v1/public/data?startDate=2026-01-11&endDate=2026-01-31`,
      `${BASE}/api/v1/public/data?startDate=2026-02-01&endDate=2026-02-28`,
    ]);
  });

  it('reports the days without a record and keeps no settled day after a missing one', async () => {
    const gap = new Set(['2025-01-05', '2025-01-30', '2025-01-31']);
    const fake = fakeFetch((url) => ({
      body: { status: 'Success', data: fullWindow(url).filter((record) => !gap.has(record.date)) },
      headers: { 'x-data-settled-through': '2025-06-01', 'x-data-missing-days': '2025-01-05, 2025-01-30/2025-01-31' },
    }));
    const cache = new Map<string, DataRecord[]>();
    const result = await fetchDailyStats(options(fake.fetch, { cache }));
    expect(result.records).toHaveLength(28);
    expect(result.missingDays).toEqual(['2025-01-05', '2025-01-30', '2025-01-31']);
    expect([...cache.values()][0]?.map((record) => record.date)).toEqual(['2025-01-01', '2025-01-02', '2025-01-03', '2025-01-04']);
    fake.calls.length = 0;
    await getDailyStats(options(fake.fetch, { cache }));
    expect(fake.calls).toEqual([`${BASE}/api/v1/public/data?startDate=2025-01-05&endDate=2025-01-31`]);
  });

  it('says no settled day when everything came from the cache', async () => {
    const cache = new Map<string, DataRecord[]>();
    await getDailyStats(options(fakeFetch().fetch, { cache }));
    const again = fakeFetch();
    expect(await fetchDailyStats(options(again.fetch, { cache }))).toMatchObject({ settledThrough: undefined, missingDays: [] });
    expect(again.calls).toEqual([]);
  });

  it('does not keep a settled window with days missing (not materialised yet)', async () => {
    const fake = fakeFetch((url) => ({ body: { status: 'Success', data: fullWindow(url).slice(1) } }));
    const cache = new Map<string, DataRecord[]>();
    await getDailyStats(options(fake.fetch, { cache }));
    expect(cache.size).toBe(0);
  });

  it('hands out copies, so a caller changing its result cannot change the cache', async () => {
    const cache = new Map<string, DataRecord[]>();
    const first = await getDailyStats(options(fakeFetch().fetch, { cache }));
    first[0]!.txn_count = 999_999;
    const second = await getDailyStats(options(fakeFetch().fetch, { cache }));
    expect(second[0]!.txn_count).toBe(1);
  });

  it('treats a failing or corrupt cache as a miss', async () => {
    const broken = { get: () => Promise.reject(new Error('disk gone')), set: () => Promise.reject(new Error('disk gone')) };
    const fake = fakeFetch();
    await expect(getDailyStats(options(fake.fetch, { cache: broken }))).resolves.toHaveLength(31);
    const corrupt = new Map<string, DataRecord[]>();
    const key = windowCacheKey(new URL(`${BASE}/api/v1/public/data`), { startDate: '2025-01-01', endDate: '2025-01-31', start: 0, end: 30, days: 31 });
    corrupt.set(key, [{ date: 'bad', txn_count: 1, impr_count: 1, service_revenue: 1 }]);
    const again = fakeFetch();
    await expect(getDailyStats(options(again.fetch, { cache: corrupt }))).resolves.toHaveLength(31);
    expect(again.calls).toHaveLength(1);
    expect(corrupt.get(key)).toHaveLength(31);
  });

  it('keys a window by server and range', () => {
    const window = { startDate: '2025-01-01', endDate: '2025-01-31', start: 0, end: 30, days: 31 };
    const key = (base: string) => windowCacheKey(planRequest(options(fakeFetch().fetch, { baseUrl: base })).endpoint, window);
    expect(key('https://data.example')).toBe('https://data.example/api/v1/public/data?startDate=2025-01-01&endDate=2025-01-31');
    expect(key('https://data.example/')).toBe(key('https://data.example'));
    expect(key('https://data.example:8443')).not.toBe(key('https://data.example'));
    expect(key('https://data.example/mirror')).not.toBe(key('https://data.example'));
    expect(windowCacheKey(new URL(`${BASE}/api/v1/public/data`), { ...window, endDate: '2025-01-30', end: 29, days: 30 })).not.toBe(key(BASE));
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
    expect([...seen].map((file) => basename(file)).sort()).toEqual([
      'calendar.ts',
      'data-client.ts',
      'data-record.ts',
      'date-windows.ts',
      'errors.ts',
      'fetch-window.ts',
      'pacer.ts',
      'paths.ts',
      'rate-pacing.ts',
      'settled-days.ts',
      'window-cache.ts',
    ]);
  });
});

describe('types', () => {
  it('hands out records of exactly the server’s DataRecord type', () => {
    expectTypeOf<DataRecord>().toEqualTypeOf<ServerDataRecord>();
  });
});
