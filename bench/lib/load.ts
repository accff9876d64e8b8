/**
 * The load generator: autocannon (programmatic) for throughput and latency, and a small fetch
 * loop for time to first byte, which autocannon cannot see (it times whole responses).
 * Both run in this process, which `pinSelf` keeps on the other core than the servers.
 */
import autocannon from 'autocannon';
import { connectionRequests } from './clients.ts';
import type { Running } from './proc.ts';

export interface LoadSpec {
  origin: string;
  method: 'GET' | 'POST';
  /** One path, or several taken in turn (a rotating set of URLs). */
  paths: readonly string[];
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds: number;
  /**
   * Send each request with an X-Forwarded-For of one of this many distinct clients, in turn
   * (clients.ts; the paths spread over them). The server must trust the generator as a proxy.
   */
  clients?: number;
}

export interface LoadResult {
  rps: number;
  /** Latency percentiles in ms (autocannon records whole milliseconds). */
  p50: number;
  p99: number;
  /** Responses by status code, plus connection errors and timeouts under "error". */
  statuses: Record<string, number>;
  /** Server CPU use during the run, as a share of one core (1 = the core was saturated). */
  serverCpu?: number;
  /**
   * Server CPU time per response, in microseconds: the cost of a request, which unlike req/s
   * hardly depends on whether the load generator or other processes got their share of the CPU.
   */
  cpuUsPerRequest?: number;
  /** CPU use of this process (the load generator) during the run, as a share of one core. */
  loadGenCpu: number;
}

export async function load(spec: LoadSpec, server?: Pick<Running, 'cpuSeconds'>): Promise<LoadResult> {
  let next = 0;
  const rotate = spec.paths.length > 1 && spec.clients === undefined;
  // Laid out before the run; autocannon turns each connection's list into bytes once, as the
  // connection opens, and then only cycles through them.
  const perConnection = spec.clients === undefined ? undefined : connectionRequests(spec.paths, spec.clients, spec.connections);
  let connection = 0;
  const cpuBefore = server?.cpuSeconds();
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const result = await autocannon({
    url: `${spec.origin}${spec.paths[0]}`,
    connections: spec.connections,
    duration: spec.seconds,
    method: spec.method,
    ...(spec.headers ? { headers: spec.headers } : {}),
    ...(spec.body === undefined ? {} : { body: spec.body }),
    ...(rotate ? { requests: [{ setupRequest: (request) => ({ ...request, path: spec.paths[next++ % spec.paths.length]! }) }] } : {}),
    ...(perConnection ? { setupClient: (client) => client.setRequests(perConnection[connection++ % perConnection.length]!) } : {}),
  });
  const wall = (performance.now() - started) / 1000;
  const own = process.cpuUsage(ownBefore);
  const statuses: Record<string, number> = {};
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) statuses[code] = count;
  if (result.errors + result.timeouts > 0) statuses['error'] = result.errors + result.timeouts;
  return {
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    statuses,
    loadGenCpu: (own.user + own.system) / 1e6 / wall,
    ...(server && cpuBefore !== undefined ? cpuFigures(server.cpuSeconds() - cpuBefore, wall, result.requests.total) : {}),
  };
}

function cpuFigures(cpuSeconds: number, wallSeconds: number, requests: number): Pick<LoadResult, 'serverCpu' | 'cpuUsPerRequest'> {
  return { serverCpu: cpuSeconds / wallSeconds, ...(requests > 0 ? { cpuUsPerRequest: (cpuSeconds * 1e6) / requests } : {}) };
}

/** Share of responses with `status`; anything else means the run measured the wrong thing. */
export function shareOf(statuses: Record<string, number>, status: number): number {
  const total = Object.values(statuses).reduce((a, b) => a + b, 0);
  return total === 0 ? 0 : (statuses[String(status)] ?? 0) / total;
}

export interface TtfbSpec {
  url: string;
  headers: Record<string, string>;
  /** Request bodies, taken in turn. */
  bodies: readonly string[];
  workers: number;
  seconds: number;
}

export interface TtfbResult {
  requests: number;
  /** Time to first body byte, ms. */
  p50: number;
  p99: number;
  max: number;
  statuses: Record<string, number>;
}

/**
 * `workers` clients, each posting, timing until the first chunk of the body arrives, then
 * reading the rest (as a chat widget does) before its next request.
 */
export async function timeToFirstByte(spec: TtfbSpec): Promise<TtfbResult> {
  const deadline = performance.now() + spec.seconds * 1000;
  const times: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const body = spec.bodies[next++ % spec.bodies.length]!;
      const started = performance.now();
      try {
        const response = await fetch(spec.url, { method: 'POST', headers: spec.headers, body });
        const reader = response.body!.getReader();
        const first = await reader.read();
        if (!first.done) times.push(performance.now() - started);
        while (!(await reader.read()).done);
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      } catch {
        statuses['error'] = (statuses['error'] ?? 0) + 1;
      }
    }
  };
  await Promise.all(Array.from({ length: spec.workers }, worker));
  times.sort((a, b) => a - b);
  return { requests: times.length, p50: percentile(times, 0.5), p99: percentile(times, 0.99), max: times.at(-1) ?? Number.NaN, statuses };
}

/** Nearest-rank percentile of an ascending array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
