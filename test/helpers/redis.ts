/**
 * Redis for the tests: private `redis-server` processes (Debian package redis-server) that keep
 * nothing on disk, and the URL of the run's shared one, started by test/global-setup.ts (or
 * TEST_REDIS_URL's).
 */
import { inject } from 'vitest';
import { freePort, spawnOwned, type OwnedProcess } from './processes.ts';

/** The Redis every test file of this run may share; keys go under a prefix unique to the file. */
export function testRedisUrl(): string {
  return inject('redisUrl');
}

export interface RedisServer {
  url: string;
  port: number;
  process: OwnedProcess;
  /** SIGKILL and wait: a crash, as far as clients can tell. */
  kill(): Promise<void>;
  /** A clean shutdown (SIGTERM), waited for. */
  stop(): Promise<void>;
}

/** Start redis-server on `port` (a free one when absent) and resolve once it accepts connections. */
export async function startRedis(port?: number): Promise<RedisServer> {
  // A port picked here can be taken before redis binds it; pick again then, unless it was asked for.
  for (let attempt = 1; ; attempt++) {
    const chosen = port ?? (await freePort());
    const owned = spawnOwned('redis-server', ['--port', String(chosen), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', '/tmp'], { deathSignal: 'SIGKILL' });
    try {
      await owned.waitForLine(/Ready to accept connections/, 60_000);
    } catch (error) {
      await owned.stop('SIGKILL');
      if (port === undefined && attempt < 3 && /Address already in use/.test(owned.output())) continue;
      throw error;
    }
    return {
      url: `redis://127.0.0.1:${chosen}`,
      port: chosen,
      process: owned,
      kill: () => owned.stop('SIGKILL'),
      stop: () => owned.stop('SIGTERM'),
    };
  }
}

/**
 * For a test about exact limits, not about a loaded machine: a first connection or an answer
 * slower than the store's defaults (1 s, 250 ms) counts as an outage, and the store (by design)
 * answers from its memory instead.
 */
export const PATIENT_REDIS_STORE = { commandTimeoutMs: 10_000, firstConnectWaitMs: 10_000 };

const SHARED_LIMITS_METRICS_TOKEN = 'shared-limits-check-0123456789abcdef0123456789';

/**
 * The environment of a server whose limits a test counts across instances: Redis's answers are
 * waited for (10 s, as PATIENT_REDIS_STORE), and /metrics is on for `untilLimitsShared`.
 */
export const SHARED_LIMITS_ENV = { REDIS_TIMEOUT_MS: '10000', METRICS_TOKEN: SHARED_LIMITS_METRICS_TOKEN };

/**
 * Resolve once `server` (started with SHARED_LIMITS_ENV) decides its
 * rate limits in Redis. Its limiter connects on its first request and answers that one from its
 * own memory when the connection takes longer than a second, as on a loaded machine; a test that
 * counts admissions across instances must not start before. A request to /api/news makes it
 * connect (or probe again); `ratelimit_degraded 0` on /metrics after it says it went to Redis.
 */
export async function untilLimitsShared(server: { url: string }, timeoutMs = 30_000): Promise<void> {
  const headers = { authorization: `Bearer ${SHARED_LIMITS_METRICS_TOKEN}` };
  for (const end = Date.now() + timeoutMs; ; ) {
    await (await fetch(`${server.url}/api/news`)).arrayBuffer();
    const metrics = await (await fetch(`${server.url}/metrics`, { headers })).text();
    const degraded = metrics.split('\n').find((line) => line.startsWith('ratelimit_degraded '));
    if (degraded === undefined) throw new Error(`no ratelimit_degraded on ${server.url}/metrics:\n${metrics.slice(0, 500)}`);
    if (degraded === 'ratelimit_degraded 0') return;
    if (Date.now() > end) throw new Error(`${server.url} still answers rate limits from memory after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
