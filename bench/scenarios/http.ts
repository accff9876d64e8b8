/**
 * The HTTP scenarios: one table row each, run against our server and, alternately in
 * the same rounds, against its baseline. Figures are medians over the rounds; the ratio is the
 * median of ours over the median of the baseline.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CapturedResponse } from '../baselines.ts';
import { load, median, shareOf, type LoadResult, type LoadSpec } from '../lib/load.ts';
import { startServer, type Running } from '../lib/proc.ts';
import type { Settings } from '../lib/settings.ts';

/** Server instances the scenarios run against (see run.ts for their environments). */
export interface Instances {
  /** Production settings, rate limits raised out of the way, the default response cache. */
  main: Running;
  /** As main, with RESPONSE_CACHE_MAX_BYTES=1: no response fits, every data request is a miss. */
  nocache: Running;
  /** Limits of 1 per window: everything after the first request is a 429. */
  limited: Running;
  /** As main, with METRICS_TOKEN set: the registry records every request (the metrics' cost). */
  metrics: Running;
  /** As main, started and loaded as `metrics` is (its baseline), so neither is warmer than the other. */
  metricsOff: Running;
  /** The query baseline (bench/baselines.ts query). */
  query: Running;
}

export interface HttpContext {
  instances: Instances;
  /** A 31-day range of settled, materialized days. */
  settledPath: string;
  /** Every 31-day range of the seeded period, in turn. */
  rangePaths: readonly string[];
  settings: Settings;
  workDir: string;
}

export interface Target {
  /** Minimum requests/s as a multiple of the baseline's. */
  ratio?: number;
  /** Maximum p99 latency, ms. */
  p99Ms?: number;
  /** Minimum requests/s, absolute. */
  rps?: number;
  /** Minimum requests/s as a multiple of the peer's. */
  peerRatio?: number;
}

export interface HttpScenario {
  id: string;
  name: string;
  instance: 'main' | 'nocache' | 'limited' | 'metrics';
  method: 'GET' | 'POST';
  paths: (context: HttpContext) => readonly string[];
  headers?: Record<string, string>;
  body?: string;
  /** The status every response should have; a run where fewer than 99 % do is invalid. */
  status: number;
  /** `metrics-off`: an instance as main (METRICS_TOKEN unset, so no registry), for the metrics' cost. */
  baseline?: 'ceiling' | 'query' | 'metrics-off';
  /** What a user would build instead (bench/peers/fastify.ts), run in the same rounds. */
  peer?: 'fastify';
  target: Target;
}

export const CONTACT_BODY = JSON.stringify({
  name: 'Bench Mark',
  job_title: 'Load tester',
  work_email: 'bench@example.com',
  priority: 'standard',
  message: 'A valid submission sent by the benchmark (bench/scenarios/http.ts).',
});

export const HTTP_SCENARIOS: readonly HttpScenario[] = [
  { id: 'data-hit', name: 'GET /api/v1/public/data, repeated range (cache hit)', instance: 'main', method: 'GET', paths: (c) => [c.settledPath], status: 200, baseline: 'ceiling', peer: 'fastify', target: { ratio: 0.7, p99Ms: 10, peerRatio: 1.1 } },
  { id: 'data-miss', name: 'GET /api/v1/public/data, distinct ranges (cache miss, SQLite)', instance: 'nocache', method: 'GET', paths: (c) => c.rangePaths, status: 200, baseline: 'query', target: { ratio: 0.6 } },
  // What the metrics cost on the hottest path: the same cache hit with the registry recording
  // every request against an instance as main, where METRICS_TOKEN is unset and nothing is recorded.
  { id: 'data-hit-metrics', name: 'GET /api/v1/public/data, repeated range (cache hit), metrics on', instance: 'metrics', method: 'GET', paths: (c) => [c.settledPath], status: 200, baseline: 'metrics-off', target: { ratio: 0.95 } },
  { id: 'news', name: 'GET /api/news', instance: 'main', method: 'GET', paths: () => ['/api/news'], status: 200, baseline: 'ceiling', target: { ratio: 0.5 } },
  { id: 'sellers', name: 'GET /sellers.json', instance: 'main', method: 'GET', paths: () => ['/sellers.json'], status: 200, baseline: 'ceiling', target: { ratio: 0.5 } },
  { id: 'page-home', name: 'GET / (prebuilt page)', instance: 'main', method: 'GET', paths: () => ['/'], status: 200, baseline: 'ceiling', target: { ratio: 0.5 } },
  { id: 'page-news', name: 'GET /news (prebuilt page)', instance: 'main', method: 'GET', paths: () => ['/news'], status: 200, baseline: 'ceiling', target: { ratio: 0.5 } },
  { id: '429-site', name: 'GET /api/news over the limit (429 problem+json)', instance: 'limited', method: 'GET', paths: () => ['/api/news'], status: 429, baseline: 'ceiling', peer: 'fastify', target: { ratio: 0.7 } },
  { id: '429-data', name: 'GET /api/v1/public/data over the limit (429 SVC1010)', instance: 'limited', method: 'GET', paths: (c) => [c.settledPath], status: 429, baseline: 'ceiling', peer: 'fastify', target: { ratio: 0.7 } },
  {
    id: 'contact',
    name: 'POST /api/contact, valid submissions (SQLite, durable)',
    instance: 'main',
    method: 'POST',
    paths: () => ['/api/contact'],
    headers: { 'content-type': 'application/json' },
    body: CONTACT_BODY,
    status: 200,
    target: { rps: 2000 },
  },
];

export interface HttpOutcome {
  scenario: HttpScenario;
  ours: LoadResult;
  baseline?: LoadResult;
  ratio?: number;
  peer?: LoadResult;
  /** Our req/s over the peer's. */
  peerRatio?: number;
  /** Why the run does not count (wrong statuses), if so. */
  invalid?: string;
  /**
   * Set when in either side's median run neither the server nor the load generator had its core
   * to itself: other processes took CPU, so req/s (and the ratio) mean little; CPU us/req still do.
   */
  noisy?: string;
  met: boolean;
}

/** Headers that differ per request or describe framing: not replayed by the peer. */
const PER_REQUEST = /^(date|connection|keep-alive|content-length|transfer-encoding|content-type|x-request-id|retry-after|ratelimit-.*|x-ratelimit-.*|x-daily-quota-remaining)$/;

/** The exact bytes our server answers for `path`: the ceiling's and the peer's response. */
async function capture(server: Running, path: string, status: number): Promise<CapturedResponse> {
  // The limited instance answers 200 until the client's first token is spent.
  for (let attempt = 0; attempt < 5; attempt++) {
    const response = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'identity' } });
    const body = Buffer.from(await response.arrayBuffer());
    if (response.status === status) {
      const headers = Object.fromEntries([...response.headers].filter(([name]) => !PER_REQUEST.test(name)));
      return { path, status, contentType: response.headers.get('content-type') ?? 'application/octet-stream', body: body.toString('base64'), headers };
    }
  }
  throw new Error(`${server.name} did not answer ${path} with ${status}`);
}

function medianResult(results: readonly LoadResult[]): LoadResult {
  const statuses: Record<string, number> = {};
  for (const r of results) for (const [code, n] of Object.entries(r.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const cpu = results.map((r) => r.serverCpu).filter((c): c is number => c !== undefined);
  const perRequest = results.map((r) => r.cpuUsPerRequest).filter((c): c is number => c !== undefined);
  return {
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    statuses,
    loadGenCpu: median(results.map((r) => r.loadGenCpu)),
    ...(cpu.length > 0 ? { serverCpu: median(cpu) } : {}),
    ...(perRequest.length > 0 ? { cpuUsPerRequest: median(perRequest) } : {}),
  };
}

export function loadSpec(scenario: HttpScenario, context: HttpContext, origin: string, seconds: number): LoadSpec {
  return {
    origin,
    method: scenario.method,
    paths: scenario.paths(context),
    ...(scenario.headers ? { headers: scenario.headers } : {}),
    ...(scenario.body === undefined ? {} : { body: scenario.body }),
    connections: context.settings.connections,
    seconds,
  };
}

export async function runHttpScenario(scenario: HttpScenario, context: HttpContext): Promise<HttpOutcome> {
  const { settings } = context;
  const server = context.instances[scenario.instance];
  let baseline: Running | undefined;
  let peer: Running | undefined;
  if (scenario.baseline === 'query') baseline = context.instances.query;
  if (scenario.baseline === 'metrics-off') baseline = context.instances.metricsOff;
  const file = join(context.workDir, `captured-${scenario.id}.json`);
  if (scenario.baseline === 'ceiling' || scenario.peer) {
    writeFileSync(file, JSON.stringify([await capture(server, scenario.paths(context)[0]!, scenario.status)]));
  }
  const env = { PATH: process.env['PATH'] ?? '' };
  try {
    if (scenario.baseline === 'ceiling') {
      baseline = await startServer({ name: `ceiling ${scenario.id}`, args: ['bench/baselines.ts', 'ceiling', file], env, logFile: `${file}.ceiling.log` });
    }
    if (scenario.peer === 'fastify') {
      // The peer's limit matches the instance's: out of the way, or 1 a minute for the 429 rows.
      const perMinute = scenario.instance === 'limited' ? '1' : '1000000000';
      peer = await startServer({ name: `fastify ${scenario.id}`, args: ['bench/peers/fastify.ts', file, perMinute, `${file}.fastify-requests.log`], env, logFile: `${file}.fastify.log` });
    }
    const targets = [server, baseline, peer].filter((t): t is Running => t !== undefined);
    for (const t of targets) await load(loadSpec(scenario, context, t.url, settings.warmupSeconds));
    const results = new Map<Running, LoadResult[]>(targets.map((t) => [t, []]));
    for (let round = 0; round < settings.rounds; round++) {
      // Alternate who goes first, so drift (thermal, other load) does not favour one side.
      const order = round % 2 === 0 ? targets : [...targets].reverse();
      for (const t of order) results.get(t)!.push(await load(loadSpec(scenario, context, t.url, settings.seconds), t));
    }
    const medianOf = (t: Running | undefined) => (t ? medianResult(results.get(t)!) : undefined);
    return evaluate(scenario, medianOf(server)!, medianOf(baseline), medianOf(peer));
  } finally {
    if (scenario.baseline === 'ceiling') await baseline?.stop();
    await peer?.stop();
    // Two log lines per request: hundreds of MB over a full run, and nothing to read in them.
    rmSync(`${file}.fastify-requests.log`, { force: true });
  }
}

function evaluate(scenario: HttpScenario, ours: LoadResult, baseline: LoadResult | undefined, peer: LoadResult | undefined): HttpOutcome {
  const share = shareOf(ours.statuses, scenario.status);
  const invalid = share < 0.99 ? `only ${(share * 100).toFixed(1)} % of responses were ${scenario.status}: ${JSON.stringify(ours.statuses)}` : undefined;
  const ratio = baseline ? ours.rps / baseline.rps : undefined;
  const peerRatio = peer ? ours.rps / peer.rps : undefined;
  const { target } = scenario;
  const met =
    invalid === undefined &&
    (target.ratio === undefined || (ratio ?? 0) >= target.ratio) &&
    (target.p99Ms === undefined || ours.p99 <= target.p99Ms) &&
    (target.rps === undefined || ours.rps >= target.rps) &&
    (target.peerRatio === undefined || (peerRatio ?? 0) >= target.peerRatio);
  const starved = (r: LoadResult | undefined) => r !== undefined && (r.serverCpu ?? 1) < 0.8 && r.loadGenCpu < 0.8;
  const noisy = starved(ours) ? 'ours' : starved(baseline) ? 'baseline' : starved(peer) ? 'peer' : undefined;
  return {
    scenario,
    ours,
    ...(baseline ? { baseline } : {}),
    ...(ratio === undefined ? {} : { ratio }),
    ...(peer ? { peer } : {}),
    ...(peerRatio === undefined ? {} : { peerRatio }),
    ...(invalid ? { invalid } : {}),
    ...(noisy ? { noisy: `the ${noisy} runs had neither the server nor the load generator busy: other processes held the CPU` } : {}),
    // A ratio measured while other processes held the CPU proves nothing either way.
    met: met && !noisy,
  };
}

export function describeTarget(target: Target, baseline?: string): string {
  const parts: string[] = [];
  if (target.ratio !== undefined) parts.push(`>= ${target.ratio} x ${baseline ?? 'baseline'}`);
  if (target.p99Ms !== undefined) parts.push(`p99 <= ${target.p99Ms} ms`);
  if (target.rps !== undefined) parts.push(`>= ${target.rps.toLocaleString('en')} req/s`);
  if (target.peerRatio !== undefined) parts.push(`>= ${target.peerRatio} x Fastify peer`);
  return parts.join('; ');
}
