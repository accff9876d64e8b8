/**
 * The request metrics end to end: the edge's observation of each finished request (the
 * pipeline's last stage) counted by the registry and read at /metrics, and a flood of random
 * paths from random client addresses adding no series.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const TOKEN = randomBytes(24).toString('hex');
let server: RunningServer;
beforeAll(async () => {
  // Clients told apart by X-Forwarded-For from the loopback proxy; limits out of the way.
  server = await startServer({ METRICS_TOKEN: TOKEN, TRUST_PROXY: '127.0.0.1', RATE_LIMIT_PAGE_MINUTE: '100000', RATE_LIMIT_SITE_MINUTE: '100000', RATE_LIMIT_DATA_MINUTE: '100000', RATE_LIMIT_DATA_DAY: '100000' });
}, 60_000);
afterAll(async () => {
  await server?.stop();
});

async function scrape(): Promise<Map<string, number>> {
  const res = await rawRequest(server.url, '/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.status).toBe(200);
  const samples = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    samples.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return samples;
}

/** The series of the families requests feed (the process metrics vary by themselves). */
const requestSeries = (samples: Map<string, number>) => [...samples.keys()].filter((name) => /^(http_|ratelimit_decisions)/.test(name)).length;

describe('request metrics through the edge', () => {
  it('counts each request by route, method and status class, with the caches and the limiter', async () => {
    const data = '/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-31';
    for (let i = 0; i < 3; i++) expect((await rawRequest(server.url, data)).status).toBe(200);
    expect((await rawRequest(server.url, '/sellers.json')).status).toBe(200);
    expect((await rawRequest(server.url, `/no-such-page-${randomBytes(4).toString('hex')}`)).status).toBe(404);
    const after = await scrape();
    expect(after.get('http_requests_total{route="/api/v1/public/data",method="GET",status_class="2xx"}')).toBe(3);
    expect(after.get('http_request_duration_seconds_count{route="/api/v1/public/data",method="GET",status_class="2xx"}')).toBe(3);
    expect(after.get('http_requests_total{route="other",method="GET",status_class="4xx"}')).toBeGreaterThanOrEqual(1);
    expect(after.get('http_response_body_bytes_total{route="/api/v1/public/data"}')).toBeGreaterThan(0);
    // The first data answer is stored, the next two come from the response cache.
    expect(after.get('http_response_cache_requests_total{result="hit"}')).toBeGreaterThanOrEqual(2);
    expect(after.get('http_static_cache_requests_total{result="miss"}')! + (after.get('http_static_cache_requests_total{result="hit"}') ?? 0)).toBeGreaterThanOrEqual(1);
    expect(after.get('ratelimit_decisions_total{class="data",outcome="allowed"}')).toBe(3);
  });

  it('adds no series under a flood of random paths and client addresses', async () => {
    const flood = async (n: number) => {
      for (let i = 0; i < n; i += 25) {
        await Promise.all(
          Array.from({ length: 25 }, (_, j) => {
            const junk = randomBytes(6).toString('hex');
            const path = ['/', '/api/', '/api/v1/public/', '/news/', '/_astro/'][(i + j) % 5] + junk;
            const client = `10.${(i + j) % 250}.${randomBytes(1)[0]}.${randomBytes(1)[0]}`;
            return rawRequest(server.url, path, { headers: { 'x-forwarded-for': client } });
          }),
        );
      }
    };
    await flood(250);
    const before = requestSeries(await scrape());
    await flood(1_000);
    expect(requestSeries(await scrape())).toBe(before);
  }, 120_000);
});
