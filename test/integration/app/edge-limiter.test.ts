/**
 * Rate limits through the real server: exact admission under concurrency, one limit shared by two
 * instances through the run's Redis, and service continuing when Redis goes away.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { SHARED_LIMITS_ENV, startRedis, testRedisUrl, untilLimitsShared } from '../../helpers/redis.ts';
import { startServer, tempSqliteUrl, type RunningServer } from '../../helpers/server.ts';

const RANGE = '/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-02';
const started: RunningServer[] = [];
afterAll(async () => {
  await Promise.all(started.map((s) => s.stop()));
});

async function boot(env: Record<string, string>): Promise<RunningServer> {
  const server = await startServer(env);
  started.push(server);
  return server;
}

async function statuses(urls: string[]): Promise<number[]> {
  return Promise.all(urls.map(async (url) => (await fetch(url)).status));
}

describe('rate limits through the server', () => {
  it('admits exactly the daily quota out of 1,000 concurrent requests', async () => {
    const server = await boot({ RATE_LIMIT_DATA_DAY: '100', RATE_LIMIT_DATA_MINUTE: '100000' });
    const results = await statuses(Array.from({ length: 1000 }, () => `${server.url}${RANGE}`));
    expect(results.filter((s) => s !== 429)).toHaveLength(100);
    expect(results.filter((s) => s === 429)).toHaveLength(900);
  });

  it('reports the data headers on success and SVC1010 with Retry-After when refused', async () => {
    const server = await boot({ RATE_LIMIT_DATA_DAY: '1', RATE_LIMIT_DATA_MINUTE: '100000' });
    const ok = await fetch(`${server.url}${RANGE}`);
    expect(ok.status).not.toBe(429);
    expect(ok.headers.get('x-daily-quota-remaining')).toBe('0');
    expect(Number(ok.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
    const refused = await fetch(`${server.url}${RANGE}`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await refused.json()) as { code: string; message: string };
    expect(body.code).toBe('SVC1010');
    expect(body.message).toMatch(/^rate limit exceeded: the daily quota is spent/);
  });

  it('puts RateLimit headers on every site API response and a problem on 429', async () => {
    const server = await boot({ RATE_LIMIT_SITE_MINUTE: '2' });
    const first = await fetch(`${server.url}/api/news`);
    expect(first.headers.get('ratelimit-limit')).toBe('2');
    expect(first.headers.get('ratelimit-remaining')).toBe('1');
    expect(first.headers.get('ratelimit-policy')).toBe('2;w=60');
    await fetch(`${server.url}/sellers.json`);
    const refused = await fetch(`${server.url}/api/nope`);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(refused.headers.get('x-ratelimit-scope')).toBe('site-minute');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await refused.json()).toMatchObject({ status: 429, code: 'rate_limited', title: 'Too many requests' });
    // Pages are not limited.
    expect((await fetch(`${server.url}/`)).status).toBe(200);
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY says so', async () => {
    const server = await boot({ RATE_LIMIT_SITE_MINUTE: '1' });
    await fetch(`${server.url}/api/news`, { headers: { 'x-forwarded-for': '203.0.113.1' } });
    const spoofed = await fetch(`${server.url}/api/news`, { headers: { 'x-forwarded-for': '203.0.113.2' } });
    expect(spoofed.status).toBe(429);

    const proxied = await boot({ RATE_LIMIT_SITE_MINUTE: '1', TRUST_PROXY: '127.0.0.1' });
    expect((await fetch(`${proxied.url}/api/news`, { headers: { 'x-forwarded-for': '203.0.113.1' } })).status).toBe(200);
    expect((await fetch(`${proxied.url}/api/news`, { headers: { 'x-forwarded-for': '203.0.113.2' } })).status).toBe(200);
    expect((await fetch(`${proxied.url}/api/news`, { headers: { 'x-forwarded-for': '203.0.113.1' } })).status).toBe(429);
  });
});

describe('rate limits shared through Redis', () => {
  it('two instances on one Redis together admit exactly the quota', async () => {
    const env = {
      REDIS_URL: testRedisUrl(),
      REDIS_KEY_PREFIX: `test-${randomBytes(4).toString('hex')}:`,
      // Exactness needs Redis to answer every check; on a loaded machine 250 ms can pass and the
      // instances would (by design) fall back to their own in-process limits.
      ...SHARED_LIMITS_ENV,
      RATE_LIMIT_DATA_DAY: '150',
      RATE_LIMIT_DATA_MINUTE: '100000',
      DATABASE_URL: tempSqliteUrl(),
    };
    const [a, b] = await Promise.all([boot(env), boot({ ...env, DATABASE_URL: tempSqliteUrl() })]);
    await Promise.all([untilLimitsShared(a!), untilLimitsShared(b!)]);
    const urls = Array.from({ length: 600 }, (_, i) => `${(i % 2 ? a! : b!).url}${RANGE}`);
    const results = await statuses(urls);
    expect(results.filter((s) => s !== 429)).toHaveLength(150);
  });

  it('keeps answering with in-process limits when its Redis goes away, warning once', async () => {
    const redis = await startRedis();
    try {
      const server = await boot({ REDIS_URL: redis.url });
      expect(await statuses(Array.from({ length: 20 }, () => `${server.url}/api/news`))).toEqual(Array(20).fill(200));
      await redis.kill();
      const during = await statuses(Array.from({ length: 40 }, () => `${server.url}/api/news`));
      expect(during).toEqual(Array(40).fill(200));
      // The build-origin warning (a build for :4321 served on a free port) is not the limiter's.
      const warnings = server.output.filter((l) => l.includes('"level":"warn"') && !l.includes('"builtFor"'));
      expect(warnings).toHaveLength(1);
    } finally {
      await redis.kill();
    }
  });
});
