import { describe, expect, it } from 'vitest';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';

/** The sample lines of an exposition as name{labels} -> value. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    out.set(match[1]!, Number(match[2]));
  }
  return out;
}

describe('the metrics registry', () => {
  it('exposes what the meter recorded in the Prometheus text format, every family with HELP and TYPE', async () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.meter.count('http_requests_total', { route: '/api/news', method: 'GET', status_class: '2xx' });
    metrics.meter.count('http_requests_total', { route: '/api/news', method: 'GET', status_class: '2xx' }, 2);
    metrics.meter.observe('http_request_duration_seconds', 0.003, { route: '/api/news', method: 'GET', status_class: '2xx' });
    metrics.meter.set('backup_last_success_timestamp_seconds', 1_700_000_000);
    const text = await metrics.scrape();
    expect(metrics.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
    const values = samples(text);
    expect(values.get('http_requests_total{route="/api/news",method="GET",status_class="2xx"}')).toBe(3);
    expect(values.get('http_request_duration_seconds_bucket{le="0.005",route="/api/news",method="GET",status_class="2xx"}')).toBe(1);
    expect(values.get('http_request_duration_seconds_bucket{le="0.0025",route="/api/news",method="GET",status_class="2xx"}')).toBe(0);
    expect(values.get('backup_last_success_timestamp_seconds')).toBe(1_700_000_000);
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain('# HELP contact_outbox_pending ');
  });

  it('puts an observation on a bucket\'s bound into that bucket (le is "less than or equal"), and refuses what no series can hold', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const labels = { assistant: 'llm' };
    for (const value of [0.005, 0.0051, 100]) metrics.meter.observe('chat_first_byte_seconds', value, labels);
    const values = samples(await metrics.scrape());
    expect(values.get('chat_first_byte_seconds_bucket{le="0.005",assistant="llm"}')).toBe(1);
    expect(values.get('chat_first_byte_seconds_bucket{le="0.025",assistant="llm"}')).toBe(2);
    expect(values.get('chat_first_byte_seconds_bucket{le="15",assistant="llm"}')).toBe(2);
    expect(values.get('chat_first_byte_seconds_bucket{le="+Inf",assistant="llm"}')).toBe(3);
    expect(values.get('chat_first_byte_seconds_count{assistant="llm"}')).toBe(3);
    expect(values.get('chat_first_byte_seconds_sum{assistant="llm"}')).toBeCloseTo(100.0101, 6);
    expect(() => metrics.meter.observe('chat_first_byte_seconds', Number.NaN, labels)).toThrow(/cannot observe NaN/);
    expect(() => metrics.meter.count('chat_replies_total', labels, -1)).toThrow(/cannot add -1/);
  });

  it('binds a series once for a hot path: it records what the meter would, checked the same way', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const labels = { route: '/api/news', method: 'GET', status_class: '2xx' };
    const requests = metrics.bind('http_requests_total', labels);
    const duration = metrics.bind('http_request_duration_seconds', labels);
    requests(1);
    requests(2);
    metrics.meter.count('http_requests_total', labels);
    duration(0.0025);
    duration(0.003);
    duration(100);
    const values = samples(await metrics.scrape());
    const sample = (name: string, le?: string) => values.get(`${name}{${le === undefined ? '' : `le="${le}",`}route="/api/news",method="GET",status_class="2xx"}`);
    expect(sample('http_requests_total')).toBe(4);
    const buckets = ['0.0025', '0.005', '10'].map((le) => sample('http_request_duration_seconds_bucket', le));
    expect([...buckets, sample('http_request_duration_seconds_count')]).toEqual([1, 2, 2, 3]);
    expect(sample('http_request_duration_seconds_sum')).toBeCloseTo(100.0055, 6);
    expect(() => requests(-1)).toThrow(/cannot add -1/);
    expect(() => duration(Number.POSITIVE_INFINITY)).toThrow(/cannot observe Infinity/);
    expect(() => metrics.bind('http_requests_count', labels)).toThrow(/not declared in the catalog/);
    expect(() => metrics.bind('http_requests_total', { route: '/api/news', client: '192.0.2.1' })).toThrow(/has no label client/);
  });

  it('carries the library\'s process metrics on the same registry', async () => {
    const metrics = createMetrics();
    const text = await metrics.scrape();
    for (const name of ['process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes', 'nodejs_gc_duration_seconds', 'process_cpu_seconds_total']) {
      expect(text).toContain(`# TYPE ${name} `);
    }
  });

  it('runs the collectors before each exposition; a failing one keeps its gauge and is counted', async () => {
    const metrics = createMetrics({ processMetrics: false, collectTimeoutMs: 50 });
    let pending = 3;
    metrics.collect('contact_outbox', (meter) => meter.set('contact_outbox_pending', pending));
    metrics.collect('stats', () => Promise.reject(new Error('database down')));
    metrics.collect('slow', () => new Promise(() => {}));
    expect(samples(await metrics.scrape()).get('contact_outbox_pending')).toBe(3);
    pending = 5;
    const values = samples(await metrics.scrape());
    expect(values.get('contact_outbox_pending')).toBe(5);
    expect(values.get('metrics_collect_errors_total{collector="stats"}')).toBe(2);
    expect(values.get('metrics_collect_errors_total{collector="slow"}')).toBe(2);
  });

  it('refuses a collector registered twice', () => {
    const metrics = createMetrics({ processMetrics: false });
    metrics.collect('stats', () => {});
    expect(() => metrics.collect('stats', () => {})).toThrow(/registered twice/);
  });

  it('counts series, a histogram child as one', async () => {
    const metrics = createMetrics({ processMetrics: false });
    const before = await metrics.seriesCount();
    metrics.meter.observe('chat_first_byte_seconds', 0.01, { assistant: 'llm' });
    metrics.meter.count('chat_replies_total', { assistant: 'llm' });
    metrics.meter.count('chat_replies_total', { assistant: 'built-in' });
    expect((await metrics.seriesCount()) - before).toBe(3);
  });
});
