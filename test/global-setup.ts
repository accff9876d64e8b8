/**
 * What every test run of files outside test/unit needs before the first test file, set up once
 * in vitest's main process (vitest.config.ts: the `servers` project's global setup; a run of unit
 * files alone does without):
 *
 * - An Astro build for the tests that start the real server. `npm test` builds first; when a file
 *   is run on its own and no build exists, build once here.
 * - A PostgreSQL server and a Redis server of the run's own, so the suite needs none running on
 *   the machine: a private cluster (test/helpers/postgres-cluster.ts) and a private redis-server,
 *   each on a free port, stopped at the end. TEST_PG_URL (a role that may create databases) and
 *   TEST_REDIS_URL select existing servers instead.
 *
 * The URLs reach the test files, which run in forked processes, through vitest's provide/inject:
 * test/helpers/postgres.ts and test/helpers/redis.ts read them.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { TestProject } from 'vitest/node';
import { startPostgresCluster, sweepStaleClusters, type PostgresCluster } from './helpers/postgres-cluster.ts';
import { startRedis, type RedisServer } from './helpers/redis.ts';
import { COMPILE_CACHE_ENV } from './helpers/compile-cache.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PostgreSQL URL whose role may create databases (see test/helpers/postgres.ts). */
    pgAdminUrl: string;
    /** The run's shared Redis (see test/helpers/redis.ts). */
    redisUrl: string;
  }
}

async function buildIfMissing(): Promise<void> {
  // A build from before the assistant's index existed lacks it: the server would refuse to start.
  if (existsSync('dist/server/entry.mjs') && existsSync('dist/server/assistant-index.sqlite')) return;
  const build = spawn(process.execPath, ['node_modules/astro/bin/astro.mjs', 'build'], { stdio: 'inherit' });
  const code = await new Promise<number | null>((resolve) => build.once('exit', resolve));
  if (code !== 0) throw new Error(`astro build failed (exit ${code})`);
}

/** Milliseconds `start` took, beside its result. */
async function timed<T>(start: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const began = performance.now();
  const value = await start();
  return { value, ms: Math.round(performance.now() - began) };
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Every Node.js process a test starts with this process's environment keeps its compiled code
  // for the next start (test/helpers/compile-cache.ts says why and why it is safe); the test
  // workers, started after this setup, inherit it too.
  for (const [name, value] of Object.entries(COMPILE_CACHE_ENV)) process.env[name] ??= value;
  sweepStaleClusters();
  const pgUrl = process.env['TEST_PG_URL'];
  const redisUrl = process.env['TEST_REDIS_URL'];
  const started = await Promise.allSettled([
    pgUrl ? undefined : timed(startPostgresCluster),
    redisUrl ? undefined : timed(() => startRedis()),
    buildIfMissing(),
  ] as const);
  const [pgStart, redisStart] = started;
  const postgres: PostgresCluster | undefined = pgStart.status === 'fulfilled' ? pgStart.value?.value : undefined;
  const redis: RedisServer | undefined = redisStart.status === 'fulfilled' ? redisStart.value?.value : undefined;

  // vitest ends on Ctrl-C or SIGTERM through process.exit() without teardowns: stop them there too.
  const stopNow = () => {
    postgres?.stopNow();
    redis?.process.child.kill('SIGKILL');
  };
  process.once('exit', stopNow);
  const teardown = async () => {
    process.off('exit', stopNow);
    await Promise.all([postgres?.stop(), redis?.stop()]);
  };

  const failures = started.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
  if (failures.length > 0) {
    await teardown();
    if (redisStart.status === 'rejected') failures.push(new Error('the tests need redis-server (Debian package redis-server; `bash test/system-deps.sh` installs it)'));
    throw new AggregateError(failures, failures.map((error) => error.message).join('\n'));
  }

  const pg = postgres && pgStart.status === 'fulfilled' ? { url: postgres.adminUrl, how: `private PostgreSQL ${postgres.version}, started in ${pgStart.value?.ms} ms` } : { url: pgUrl!, how: 'TEST_PG_URL' };
  const kv = redis && redisStart.status === 'fulfilled' ? { url: redis.url, how: `private, started in ${redisStart.value?.ms} ms` } : { url: redisUrl!, how: 'TEST_REDIS_URL' };
  project.provide('pgAdminUrl', pg.url);
  project.provide('redisUrl', kv.url);
  console.log(`Test servers: PostgreSQL on ${new URL(pg.url).host} (${pg.how}), Redis on ${new URL(kv.url).host} (${kv.how})`);
  return teardown;
}
