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
