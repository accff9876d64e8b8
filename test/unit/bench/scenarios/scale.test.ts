/**
 * The pure parts of the benchmark's scale scenario: the distinct clients of the flood, the paths
 * spread over them, the verdicts against the targets and the table in RESULTS.md.
 */
import { describe, expect, it } from 'vitest';
import { connectionRequests, forwardedFor } from '../../../../bench/lib/clients.ts';
import { renderResults, scaleSection, type Results } from '../../../../bench/lib/report.ts';
import { settingsFor } from '../../../../bench/lib/settings.ts';
import { floodPaths, scaleVerdicts, type FloodOutcome, type ScaleOutcome, type SizeOutcome } from '../../../../bench/scenarios/scale.ts';
import { clientKeyOf } from '../../../../src/features/ratelimit/client-key.ts';

describe('forwardedFor', () => {
  it('gives 100,000 distinct addresses the server takes as 100,000 distinct clients', () => {
    const keys = new Set<string>();
    for (let n = 0; n < 100_000; n++) {
      keys.add(clientKeyOf('127.0.0.1', { 'x-forwarded-for': forwardedFor(n) }, { kind: 'list', cidrs: ['127.0.0.1'] }));
    }
    expect(keys.size).toBe(100_000);
    expect(forwardedFor(0)).toBe('10.0.0.0');
    expect(forwardedFor(2 ** 24 - 1)).toBe('10.255.255.255');
    expect(() => forwardedFor(2 ** 24)).toThrow(RangeError);
  });
});

describe('connectionRequests', () => {
  const paths = floodPaths(['/api/v1/public/data?a', '/api/v1/public/data?b']);

  it('names every client exactly once across the connections, and every path', () => {
    const lists = connectionRequests(paths, 100_000, 50);
    expect(lists).toHaveLength(50);
    const all = lists.flat();
    expect(all).toHaveLength(100_000);
    expect(new Set(all.map((r) => r.headers['x-forwarded-for'])).size).toBe(100_000);
    expect(new Set(all.map((r) => r.path))).toEqual(new Set(paths));
    // A quarter of the requests each for the data API, /api/news, / and /sellers.json.
    expect(all.filter((r) => r.path === '/api/news')).toHaveLength(25_000);
    expect(all.filter((r) => r.path.startsWith('/api/v1/public/data'))).toHaveLength(25_000);
  });

  it('sends one client the same paths as many', () => {
    const lists = connectionRequests(paths, 1, 50);
    const all = lists.flat();
    expect(new Set(all.map((r) => r.headers['x-forwarded-for']))).toEqual(new Set([forwardedFor(0)]));
    expect(new Set(all.map((r) => r.path))).toEqual(new Set(paths));
    expect(lists.every((list) => list.length === lists[0]!.length && list.length > 0)).toBe(true);
  });

  it('refuses nonsense', () => {
    expect(() => connectionRequests([], 1, 1)).toThrow(RangeError);
    expect(() => connectionRequests(paths, 0, 1)).toThrow(RangeError);
    expect(() => connectionRequests(paths, 1, 0)).toThrow(RangeError);
  });
});

function flood(clients: number, idleMb: number, peakMb: number, settledMb: number): FloodOutcome {
  return { clients, idleMb, peakMb, settledMb, result: { rps: 20_000, p50: 1, p99: 5, statuses: { 200: 300_000 }, loadGenCpu: 0.7, serverCpu: 0.98, cpuUsPerRequest: 49 } };
}

function size(articles: number, over: Partial<SizeOutcome> = {}): SizeOutcome {
  return { articles, buildSeconds: articles / 100, startupMs: 800, idleMb: 90, flood: flood(100_000, 90, 130, 100), newsBytes: 20_000, rssBytes: 5_000, chatP50Ms: 3, ...over };
}

function outcome(sizes: SizeOutcome[], oneClient?: FloodOutcome): ScaleOutcome {
  return { settings: settingsFor(false).scale, connections: 50, chatWorkers: 10, ownArticles: 9, commit: 'abc1234', sizes, ...(oneClient ? { oneClient } : {}), seconds: 400 };
}

describe('scaleVerdicts', () => {
  it('meets every target when the figures are within them', () => {
    const verdicts = scaleVerdicts(outcome([size(10), size(1_000), size(5_000)], flood(1, 90, 110, 95)));
    expect(verdicts.map((v) => v.met)).toEqual([true, true, true, true, true]);
    expect(verdicts[0]!.target).toContain('5,000 articles');
  });

  it('fails each target its figure misses, at the largest size', () => {
    const verdicts = scaleVerdicts(
      outcome([size(10), size(5_000, { startupMs: 1_300, idleMb: 150, chatP50Ms: 25, flood: flood(100_000, 150, 260, 200) })], flood(1, 150, 160, 150)),
    );
    const met = Object.fromEntries(verdicts.map((v) => [v.target.split(' ').slice(0, 2).join(' '), v.met]));
    expect(met).toEqual({ 'peak RSS': false, 'RSS 30': false, 'chat time': false, 'start-up time': false, 'idle RSS': false });
    expect(verdicts.find((v) => v.target.startsWith('start-up'))!.figure).toBe('1.63 x (1300 / 800 ms)');
  });

  it('leaves a target pending when its figures are missing', () => {
    const verdicts = scaleVerdicts(outcome([size(10), { articles: 5_000, buildSeconds: 200, error: 'astro build exited with 1' }]));
    expect(verdicts.map((v) => v.met)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });
});

describe('scaleSection', () => {
  it('renders the sizes, one client beside many, and the verdicts', () => {
    const markdown = scaleSection(outcome([size(10), size(5_000, { flood: flood(100_000, 95, 170, 140) })], flood(1, 92, 120, 100))).join('\n');
    expect(markdown).toMatch(/^## Scale$/m);
    expect(markdown).toContain('| 5,000 | 50.0 | 800 | 90.0 | 20,000 | 5 | 98 % | 49 | 70 % | 170.0 | 140.0 (+45.0) | 20,000 | 5,000 | 3.0 |');
    expect(markdown).toContain('| 1 | 20,000 | 5 | 98 % | 49 | 70 % | 92.0 | 120.0 | 100.0 | yes |');
    expect(markdown).toContain('| 100,000 | 20,000 | 5 | 98 % | 49 | 70 % | 95.0 | 170.0 | 140.0 | **no** |');
    expect(markdown).toMatch(/\| peak RSS <= 150 MB .* \| 170\.0 MB \| \*\*no\*\* \|/);
  });

  it('is part of RESULTS.md, before the method, and a scale-only run has no empty tables', () => {
    const settings = settingsFor(false);
    const results: Results = {
      settings,
      machine: { cpu: 'x', cores: 2, memoryGb: 1, node: 'v24', packages: {}, sqlite: '3', sqliteCli: '3', commit: 'abc1234', loadBefore: [0, 0, 0] },
      started: new Date(0),
      http: [],
      rss: [],
      profiles: [],
      scale: outcome([size(10), size(5_000)], flood(1, 90, 100, 90)),
    };
    const markdown = renderResults(results);
    expect(markdown.indexOf('## Scale')).toBeGreaterThan(markdown.indexOf('## Results'));
    expect(markdown.indexOf('## Scale')).toBeLessThan(markdown.indexOf('## Method'));
    expect(markdown).not.toContain('| scenario | req/s |');
    expect(markdown).not.toContain('| measurement | result |');
  });
});
