/**
 * The data client against the real server (`node src/app/main.ts` on a seeded SQLite file):
 * what it returns is what the database holds, and it lives within the server's limits: paced
 * before being refused, backing off when refused anyway, stopping when the daily quota is spent,
 * and revalidating what it keeps with conditional requests that spend no daily quota. A restated
 * day seen through that cache: data-client.restatement.test.ts.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { fetchDailyStats, getDailyStats, DailyQuotaExceededError, type FetchLike, type StoredAnswer, type WaitNotice } from '../../../src/client/data-client.ts';
import { dayOfInstant, formatDay } from '../../../src/lib/calendar.ts';
import type { RunningServer } from '../../helpers/server.ts';
import { useStatsServers } from '../../helpers/stats-server.ts';

const TODAY = dayOfInstant(Date.now());
/** First and last day of the calendar month `offset` months from the current one (UTC). */
function month(offset: number): { first: string; last: string } {
  const now = new Date();
  const first = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset, 1);
  const last = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + offset + 1, 0);
  return { first: formatDay(dayOfInstant(first)), last: formatDay(dayOfInstant(last)) };
}
/** Twelve whole months ending two months ago: every day settled and materialized. */
const YEAR = { from: month(-13).first, to: month(-2).last };

/** 450 days of light synthetic traffic up to yesterday, materialized. */
const { boot, fromDatabase } = useStatsServers({ days: 450, seed: 12, zeroDayOffsets: [100] });

/** The platform fetch, recording the status and the daily quota left of every answer. */
function recordingFetch() {
  const statuses: number[] = [];
  const urls: string[] = [];
  const quota: number[] = [];
  const fetch: FetchLike = async (url, init) => {
    urls.push(url);
    const response = await globalThis.fetch(url, init);
    statuses.push(response.status);
    quota.push(Number(response.headers.get('x-daily-quota-remaining')));
    return response;
  };
  return { fetch, statuses, urls, quota };
}

/** Data requests the server logged as refused (its JSON request lines; complete once it has stopped). */
function refusalsLogged(server: RunningServer): number {
  return server.output
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as { msg?: string; path?: string; status?: number })
    .filter((entry) => entry.msg === 'request' && entry.path === '/api/v1/public/data' && entry.status === 429).length;
}

describe('the data client against the server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await boot();
  });

  it('fetches a calendar year in 12 monthly requests, exactly what the database holds', async () => {
    const recorder = recordingFetch();
    const records = await getDailyStats({ from: YEAR.from, to: YEAR.to, baseUrl: server.url, fetch: recorder.fetch, cache: false });
    expect(recorder.urls).toHaveLength(12);
    expect(recorder.statuses.every((status) => status === 200)).toBe(true);
    const expected = await fromDatabase(YEAR.from, YEAR.to);
    expect(expected.length).toBeGreaterThanOrEqual(365);
    expect(records).toEqual(expected);
  });

  it('revalidates the months it keeps the second time: 12 conditional requests answered 304, which spend no daily quota', async () => {
    const cache = new Map<string, StoredAnswer>();
    const first = recordingFetch();
    const settled = await getDailyStats({ from: YEAR.from, to: YEAR.to, baseUrl: server.url, fetch: first.fetch, cache, concurrency: 1 });
    expect(first.statuses).toEqual(Array(12).fill(200));
    expect(cache.size).toBe(12);
    const second = recordingFetch();
    expect(await getDailyStats({ from: YEAR.from, to: YEAR.to, baseUrl: server.url, fetch: second.fetch, cache, concurrency: 1 })).toEqual(settled);
    expect(second.urls).toEqual(first.urls);
    expect(second.statuses).toEqual(Array(12).fill(304));
    // Each 304 gives its day unit back: the quota stands where the last 200 left it.
    expect(second.quota).toEqual(Array(12).fill(first.quota.at(-1)));

    // Recent days, still rewritten by the nightly run, are kept and revalidated alike.
    const recent = { from: formatDay(TODAY - 3), to: formatDay(TODAY - 1) };
    const fresh = await getDailyStats({ ...recent, baseUrl: server.url, cache });
    const fourth = recordingFetch();
    expect(await getDailyStats({ ...recent, baseUrl: server.url, fetch: fourth.fetch, cache })).toEqual(fresh);
    expect(fourth.statuses.length).toBeGreaterThanOrEqual(1);
    expect(fourth.statuses.every((status) => status === 304)).toBe(true);
    expect(fresh).toEqual(await fromDatabase(recent.from, recent.to));
  });
});

describe('the data client and the server’s settled days', () => {
  it('reports the settled day and the missing days, from a revalidated cache too', async () => {
    const server = await boot();
    const cache = new Map<string, StoredAnswer>();
    const range = { from: formatDay(TODAY - 40), to: formatDay(TODAY + 1) };
    const first = recordingFetch();
    const result = await fetchDailyStats({ ...range, baseUrl: server.url, fetch: first.fetch, cache });
    expect(result.settledThrough).toBe(formatDay(TODAY - 4));
    expect(result.missingDays).toEqual([formatDay(TODAY), formatDay(TODAY + 1)]);
    expect(result.records).toEqual(await fromDatabase(range.from, range.to));

    const second = recordingFetch();
    const again = await fetchDailyStats({ ...range, baseUrl: server.url, fetch: second.fetch, cache });
    expect(again).toEqual(result);
    expect(second.urls).toEqual(first.urls);
    expect(second.statuses.every((status) => status === 304)).toBe(true);
  });
});

describe('the data client within the server’s limits', () => {
  it('paces itself from the headers under a small minute limit and is never refused', async () => {
    // 30 a minute: a request refills every 2 s. 32 months are two more than the bucket holds.
    const server = await boot({ RATE_LIMIT_DATA_MINUTE: '30' });
    const range = { from: month(-33).first, to: month(-2).last };
    const recorder = recordingFetch();
    const waits: WaitNotice[] = [];
    const records = await getDailyStats({ ...range, baseUrl: server.url, fetch: recorder.fetch, cache: false, onWait: (w) => waits.push(w) });
    expect(records).toEqual(await fromDatabase(range.from, range.to));
    expect(recorder.urls).toHaveLength(32);
    expect(waits.filter((w) => w.reason === 'pacing').length).toBeGreaterThanOrEqual(1);
    expect(waits.filter((w) => w.reason === 'backoff')).toEqual([]);
    expect(recorder.statuses.filter((status) => status === 429)).toEqual([]);
    await server.stop();
    expect(refusalsLogged(server)).toBe(0);
  });

  it('backs off when refused on a bucket someone else emptied, refused no more often than it had requests in flight', async () => {
    const server = await boot({ RATE_LIMIT_DATA_MINUTE: '30' });
    const url = `${server.url}/api/v1/public/data?startDate=${YEAR.from}&endDate=${YEAR.from}`;
    let last: Response | undefined;
    for (let i = 0; i < 30; i++) {
      last = await fetch(url);
      await last.body?.cancel();
    }
    expect(last?.headers.get('x-ratelimit-remaining')).toBe('0');

    const range = { from: month(-3).first, to: month(-2).last };
    const recorder = recordingFetch();
    const waits: WaitNotice[] = [];
    const concurrency = 2;
    const records = await getDailyStats({ ...range, baseUrl: server.url, fetch: recorder.fetch, cache: false, concurrency, onWait: (w) => waits.push(w) });
    expect(records).toEqual(await fromDatabase(range.from, range.to));
    const refused = recorder.statuses.filter((status) => status === 429).length;
    expect(refused).toBeGreaterThanOrEqual(1);
    expect(refused).toBeLessThanOrEqual(concurrency);
    expect(waits.some((w) => w.reason === 'backoff')).toBe(true);
    await server.stop();
    expect(refusalsLogged(server)).toBe(refused);
  });

  it('stops with DailyQuotaExceededError, naming the next 00:00 UTC, once the daily quota is spent', async () => {
    const server = await boot({ RATE_LIMIT_DATA_DAY: '3' });
    const recorder = recordingFetch();
    const before = Date.now();
    const error = await getDailyStats({ ...YEAR, baseUrl: server.url, fetch: recorder.fetch, cache: false }).catch((e: unknown) => e);
    const after = Date.now();
    expect(error).toBeInstanceOf(DailyQuotaExceededError);
    const resetsAt = (error as DailyQuotaExceededError).resetsAt.getTime();
    // The next 00:00 UTC (either side of a midnight the test might straddle).
    expect([(dayOfInstant(before) + 1) * 86_400_000, (dayOfInstant(after) + 1) * 86_400_000]).toContain(resetsAt);
    // It stopped on the header of the third answer, without being refused.
    expect(recorder.statuses).toEqual([200, 200, 200]);
    await server.stop();
    expect(refusalsLogged(server)).toBe(0);
  });
});
