/**
 * GET /metrics on the real server: hidden (the unknown-path 404) without the token, the
 * Prometheus text exposition with it, never limited, cached or logged at info; the dashboard's
 * queries name only metrics it exports; and a real Prometheus (Debian's) scrapes it with the
 * bearer token and answers `up == 1`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG } from '../../src/features/metrics/catalog.ts';
import { freePort, spawnOwned, type OwnedProcess } from '../helpers/processes.ts';
import { rawRequest, type RawResponse } from '../helpers/raw-http.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

const TOKEN = randomBytes(24).toString('hex');
const bearer = { authorization: `Bearer ${TOKEN}` };

let server: RunningServer;
let untokened: RunningServer;
beforeAll(async () => {
  // Tight page and site limits: a scrape must never spend or meet them.
  [server, untokened] = await Promise.all([
    startServer({ METRICS_TOKEN: TOKEN, LOG_LEVEL: 'info', RATE_LIMIT_PAGE_MINUTE: '4', RATE_LIMIT_SITE_MINUTE: '4' }),
    startServer({ RATE_LIMIT_PAGE_MINUTE: '100', RATE_LIMIT_SITE_MINUTE: '100' }),
  ]);
}, 60_000);
afterAll(async () => {
  await Promise.all([server?.stop(), untokened?.stop()]);
});

/** What a visitor can compare between two answers. */
const visible = (res: RawResponse) => ({
  status: res.status,
  type: res.headers['content-type'],
  cacheControl: res.headers['cache-control'],
  encoding: res.headers['content-encoding'],
  csp: res.headers['content-security-policy'],
  body: res.body,
});

/** The families an exposition declares (its `# TYPE` lines). */
function familiesOf(text: string): Set<string> {
  return new Set([...text.matchAll(/^# TYPE (\S+) \S+$/gm)].map((m) => m[1]!));
}

describe('GET /metrics', () => {
  it('answers as an unknown path does without the token, with a wrong one, and when METRICS_TOKEN is unset', async () => {
    const headers = { 'accept-encoding': 'gzip' };
    const unknown = visible(await rawRequest(server.url, `/no-such-page-${randomBytes(4).toString('hex')}`, { headers }));
    expect(unknown.status).toBe(404);
    expect(visible(await rawRequest(server.url, '/metrics', { headers }))).toEqual(unknown);
    expect(visible(await rawRequest(server.url, '/metrics', { headers: { ...headers, authorization: `Bearer ${TOKEN.slice(1)}x` } }))).toEqual(unknown);
    const elsewhere = visible(await rawRequest(untokened.url, '/no-such-page', { headers }));
    expect(visible(await rawRequest(untokened.url, '/metrics', { headers: { ...headers, ...bearer } }))).toEqual(elsewhere);
  });

  it('gives the bearer of the token every declared family and the process metrics, in the text format', async () => {
    const res = await rawRequest(server.url, '/metrics', { headers: bearer });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    for (const line of res.body.split('\n')) {
      if (line === '') continue;
      expect(line).toMatch(/^(# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* .+|[a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="(\\.|[^"\\])*",?)*\})? -?[0-9.e+-]+|[a-zA-Z_:][a-zA-Z0-9_:]*(\{.*\})? (NaN|\+Inf|-Inf))$/);
    }
    const families = familiesOf(res.body);
    expect(CATALOG.map((f) => f.name).filter((name) => !families.has(name))).toEqual([]);
    expect(families).toContain('process_resident_memory_bytes');
    expect(families).toContain('nodejs_eventloop_lag_seconds');
  });

  it('is never rate-limited, never answered from the response cache, never in the info access log', async () => {
    const stored = async () => Number(/^contact_submissions_stored_total (\S+)$/m.exec((await rawRequest(server.url, '/metrics', { headers: bearer })).body)?.[1]);
    // Many more scrapes than the page and site limits (4 a minute) allow, none refused or limited.
    for (let i = 0; i < 10; i++) {
      const res = await rawRequest(server.url, '/metrics', { headers: bearer });
      expect(res.status).toBe(200);
      expect(Object.keys(res.headers).filter((name) => name.includes('ratelimit'))).toEqual([]);
    }
    const before = await stored();
    const submitted = await rawRequest(server.url, '/api/contact', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ name: 'Ada Lovelace', work_email: 'ada@example.com', priority: 'high', message: 'We would like to talk.' }),
    });
    expect(submitted.status).toBe(200);
    // A stored exposition would still say `before`.
    expect(await stored()).toBe(before + 1);
    const logged = server.output.filter((line) => line.includes('"msg":"request"'));
    expect(logged.some((line) => line.includes('"path":"/no-such-page-'))).toBe(true);
    expect(logged.filter((line) => line.includes('"path":"/metrics"'))).toEqual([]);
  });

  it('exports every metric the Grafana dashboard queries', async () => {
    const dashboard = JSON.parse(readFileSync('deploy/grafana/dashboard.json', 'utf8')) as { panels: { targets: { expr: string }[] }[] };
    const exprs = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
    expect(exprs.length).toBeGreaterThan(20);
    // Metric names in PromQL: identifiers followed by a selector or a closing parenthesis/space, minus functions and keywords.
    const names = new Set(exprs.flatMap((expr) => [...expr.matchAll(/([a-zA-Z_:][a-zA-Z0-9_:]*)\{/g)].map((m) => m[1]!)));
    const families = familiesOf((await rawRequest(server.url, '/metrics', { headers: bearer })).body);
    const exported = (name: string) => name === 'up' || families.has(name) || families.has(name.replace(/_(bucket|sum|count)$/, ''));
    expect(names.size).toBeGreaterThan(20);
    expect([...names].filter((name) => !exported(name))).toEqual([]);
  });
});

describe('a real Prometheus scraping the server', () => {
  let prometheus: OwnedProcess | undefined;
  afterAll(async () => {
    await prometheus?.stop('SIGTERM', 5_000);
  });

  it('scrapes with the bearer token and answers up == 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prometheus-'));
    const port = await freePort();
    const target = new URL(server.url).host;
    writeFileSync(
      join(dir, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        'scrape_configs:',
        '  - job_name: site',
        `    authorization: { type: Bearer, credentials: "${TOKEN}" }`,
        `    static_configs: [{ targets: ["${target}"] }]`,
        '',
      ].join('\n'),
    );
    prometheus = spawnOwned('prometheus', [`--config.file=${join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], { deathSignal: 'SIGKILL' });
    await prometheus.waitForLine(/Server is ready to receive web requests/, 30_000);
    const query = async (promql: string) => {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { data: { result: { value: [number, string] }[] } };
      return body.data.result.map((r) => r.value[1]);
    };
    // Scrapes come every second; ask until the first is in (bounded, so a failure cannot hang).
    let up: string[] = [];
    for (let tries = 0; tries < 120 && up[0] !== '1'; tries++) {
      up = await query('up{job="site"}');
      if (up[0] !== '1') await sleep(250);
    }
    expect(up).toEqual(['1']);
    // It read the server's own families, not only its own `up`.
    expect(await query('count(http_response_cache_bytes{job="site"})')).toEqual(['1']);
  }, 60_000);
});
