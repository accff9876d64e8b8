import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRequestObserver, statusClassOf } from '../../../src/app/request-metrics.ts';
import { createMetrics } from '../../../src/features/metrics/registry.server.ts';
import type { RequestObservation } from '../../../src/server/observation.ts';
import { routeOf } from '../../../src/server/routes.ts';

const CLASSES = ['site', 'chat', 'contact', 'data', 'page'];

function observation(path: string, overrides: Partial<RequestObservation> = {}): RequestObservation {
  return { route: routeOf(path).path, method: 'GET', status: 200, durationSeconds: 0.002, bytesSent: 100, responseCache: 'none', staticFile: 'none', ...overrides };
}

function sampleOf(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('the request observer', () => {
  it('counts requests, times them and adds their bytes, by route table name, method and status class', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const observe = createRequestObserver(metrics, CLASSES);
    observe(observation('/api/v1/public/data', { responseCache: 'hit', rateLimit: { class: 'data', outcome: 'allowed' } }));
    observe(observation('/api/v1/public/data', { status: 429, bytesSent: 50, responseCache: 'miss', rateLimit: { class: 'data', outcome: 'refused' } }));
    observe(observation('/news/', { staticFile: 'hit' }));
    observe(observation('/_astro/x.css', { staticFile: 'miss', method: 'HEAD', bytesSent: 0 }));
    const text = await metrics.scrape();
    expect(sampleOf(text, 'http_requests_total{route="/api/v1/public/data",method="GET",status_class="2xx"}')).toBe(1);
    expect(sampleOf(text, 'http_requests_total{route="/api/v1/public/data",method="GET",status_class="4xx"}')).toBe(1);
    // Pages and assets are catch-alls of the route table: `other`.
    expect(sampleOf(text, 'http_requests_total{route="other",method="GET",status_class="2xx"}')).toBe(1);
    expect(sampleOf(text, 'http_request_duration_seconds_count{route="other",method="HEAD",status_class="2xx"}')).toBe(1);
    expect(sampleOf(text, 'http_response_body_bytes_total{route="/api/v1/public/data"}')).toBe(150);
    expect(sampleOf(text, 'http_response_cache_requests_total{result="hit"}')).toBe(1);
    expect(sampleOf(text, 'http_response_cache_requests_total{result="miss"}')).toBe(1);
    expect(sampleOf(text, 'http_static_cache_requests_total{result="hit"}')).toBe(1);
    expect(sampleOf(text, 'http_static_cache_requests_total{result="miss"}')).toBe(1);
    expect(sampleOf(text, 'ratelimit_decisions_total{class="data",outcome="refused"}')).toBe(1);
  });

  it('puts what the route table does not name under `other`, and never throws', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const observe = createRequestObserver(metrics, CLASSES);
    observe(observation('/', { route: '/wp-login.php', method: 'PROPFIND', status: 999, rateLimit: { class: 'x', outcome: 'allowed' } }));
    observe(observation('/', { route: '/stats', method: 'GET', status: 200 }));
    const text = await metrics.scrape();
    expect(sampleOf(text, 'http_requests_total{route="other",method="other",status_class="other"}')).toBe(1);
    expect(sampleOf(text, 'http_requests_total{route="/stats",method="GET",status_class="2xx"}')).toBe(1);
    expect(sampleOf(text, 'ratelimit_decisions_total{class="other",outcome="allowed"}')).toBe(1);
    expect(statusClassOf(499)).toBe('4xx');
    expect(statusClassOf(503)).toBe('5xx');
  });

  it('adds no series under a flood of random paths and client addresses', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const observe = createRequestObserver(metrics, CLASSES);
    const flood = (n: number) => {
      for (let i = 0; i < n; i++) {
        const junk = randomBytes(8).toString('hex');
        // The client's address is in no observation (it has no field for one): only the path varies.
        const path = ['/', '/api/', '/api/v1/public/', '/_astro/', '/_', '/news/'][i % 6] + junk;
        observe(observation(path, { status: [200, 404, 429, 500][i % 4]!, method: ['GET', 'HEAD', 'POST'][i % 3]!, rateLimit: { class: CLASSES[i % 5]!, outcome: 'refused' } }));
      }
    };
    flood(2_000);
    const after = await metrics.seriesCount();
    flood(20_000);
    expect(await metrics.seriesCount()).toBe(after);
  });
});
