/**
 * Start-up failures an operator causes and fixes end the process with a sysexits.h status and
 * one clear line on stderr, without a stack; a normal start with passworded database and Redis
 * URLs prints neither password.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { PATHS } from '../../src/lib/paths.ts';
import { pgAdminUrl, useTempDatabase } from '../helpers/postgres.ts';
import { testRedisUrl } from '../helpers/redis.ts';
import { startServer } from '../helpers/server.ts';
import { linesOf, runToExit, SECRET, testEnv } from './startup-run.ts';

/** What a stack trace looks like in either stream. */
const STACK = /\n\s+at /;

function expectOneCleanLine(run: { stdout: string; stderr: string }, line: RegExp): void {
  expect(linesOf(run.stderr)).toEqual([expect.stringMatching(line)]);
  // Once in all: the log on stdout does not repeat it (a terminal shows both streams).
  expect(run.stdout).not.toContain(linesOf(run.stderr)[0]!.slice(0, 40));
  expect(run.stdout + run.stderr).not.toMatch(STACK);
  expect(run.stdout + run.stderr).not.toContain(SECRET);
}

describe('a start-up that cannot succeed', () => {
  it('exits 69 with one line when the port is taken, instead of living on without listening', async () => {
    const blocker = createServer();
    blocker.listen(0, '127.0.0.1');
    await once(blocker, 'listening');
    const { port } = blocker.address() as AddressInfo;
    try {
      // With the jobs on (the default), the process used to log the error and stay alive on
      // their timers, listening on nothing, until runToExit's safety net killed it (code null).
      const run = await runToExit({ PORT: String(port), JOBS_ENABLED: 'true' });
      expect(run.code).toBe(69);
      expectOneCleanLine(run, new RegExp(`^start-up failed: cannot listen on 127\\.0\\.0\\.1:${port}: the port is in use \\(EADDRINUSE\\)`));
    } finally {
      blocker.close();
    }
  });

  it('exits 66 with one line when there is no Astro build', async () => {
    const run = await runToExit({ DIST_DIR: mkdtempSync(join(tmpdir(), 'no-build-')) });
    expect(run.code).toBe(66);
    expectOneCleanLine(run, /^start-up failed: no Astro build in DIST_DIR \(.+\): run `npm run build` first$/);
  });

  /** A copy of ./dist's server entry without the assistant index (`index` writes one of its own). */
  function buildWithoutIndex(index?: (file: string) => void): string {
    const dist = mkdtempSync(join(tmpdir(), 'no-index-'));
    mkdirSync(join(dist, 'server'));
    symlinkSync(resolve('dist/server/entry.mjs'), join(dist, 'server', 'entry.mjs'));
    symlinkSync(resolve('dist/client'), join(dist, 'client'));
    index?.(join(dist, 'server', 'assistant-index.sqlite'));
    return dist;
  }

  it('exits 66 with one line when the build has no assistant index', async () => {
    const run = await runToExit({ DIST_DIR: buildWithoutIndex() });
    expect(run.code).toBe(66);
    expectOneCleanLine(run, /^start-up failed: the build has no assistant index \(.+\/server\/assistant-index\.sqlite\): run `npm run build`$/);
  });

  it('exits 78 with one line when the assistant index is of another format', async () => {
    const dist = buildWithoutIndex((file) => {
      const db = new Database(file);
      db.pragma('user_version = 999');
      db.close();
    });
    const run = await runToExit({ DIST_DIR: dist });
    expect(run.code).toBe(78);
    expectOneCleanLine(run, /^start-up failed: the assistant index \(.+\) has format 999, this server reads format \d+: run `npm run build`$/);
  });

  it('exits 69 with one line when PostgreSQL cannot be reached, without its password', async () => {
    const run = await runToExit({ DATABASE_URL: `postgres://site:${SECRET}@127.0.0.1:1/site` });
    expect(run.code).toBe(69);
    expectOneCleanLine(run, /^start-up failed: the database at DATABASE_URL \(postgres:\/\/site:\*\*\*@127\.0\.0\.1:1\/site\) cannot be reached: .*ECONNREFUSED/);
  });

  it('exits 78 with one line when the PostgreSQL database does not exist, without its password', async () => {
    // The run's server uses trust authentication: the password is sent nowhere, only printed, or not.
    const url = new URL(pgAdminUrl());
    url.password = SECRET;
    url.pathname = '/no_such_database_here';
    const run = await runToExit({ DATABASE_URL: url.toString() });
    expect(run.code).toBe(78);
    expectOneCleanLine(run, /^start-up failed: DATABASE_URL \(postgres:\/\/\w+:\*\*\*@[\d.]+:\d+\/no_such_database_here\) refused: .+ \(3D000\)$/);
  });

  it('exits 78 with one line when DATABASE_URL is a file but not a SQLite database', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'not-a-db-')), 'site.db');
    writeFileSync(file, 'this is not a database, it is a plain text file long enough to have a header '.repeat(20));
    const run = await runToExit({ DATABASE_URL: file });
    expect(run.code).toBe(78);
    expectOneCleanLine(run, /^start-up failed: DATABASE_URL \(.+site\.db\) cannot be used as a SQLite database: .+ \(SQLITE_NOTADB\)$/);
  });

  it('exits 70 with one line when a migration fails', async () => {
    // A table the first migration creates already exists, with another shape.
    const file = join(mkdtempSync(join(tmpdir(), 'bad-schema-')), 'site.db');
    const db = new Database(file);
    db.exec('create table event (unrelated text)');
    db.close();
    const run = await runToExit({ DATABASE_URL: file });
    expect(run.code).toBe(70);
    expectOneCleanLine(run, /^start-up failed: opening and migrating sqlite:.+site\.db failed: .*already exists/);
  });
});

describe('a normal start', () => {
  const pg = useTempDatabase('startup');

  it('never prints the password of a passworded DATABASE_URL or REDIS_URL', async () => {
    // Trust authentication here: PostgreSQL ignores the password, and Redis's default user has
    // none, so AUTH with any password succeeds; both URLs are used as written.
    const url = new URL(pg().url);
    url.password = SECRET;
    const redis = new URL(testRedisUrl());
    redis.username = 'default';
    redis.password = SECRET;
    const server = await startServer({ DATABASE_URL: url.toString(), REDIS_URL: redis.toString(), REDIS_KEY_PREFIX: `startup-${process.pid}:`, LOG_LEVEL: 'debug' });
    try {
      for (const path of ['/', PATHS.news, PATHS.data, PATHS.readyz]) await (await fetch(new URL(path, server.url))).arrayBuffer();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    const printed = server.output.join('\n');
    expect(printed).toContain('"msg":"listening"');
    expect(printed).not.toContain(SECRET);
  });

  it('creates the default ./data directory on a fresh clone, and only that one', async () => {
    const clone = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
    const child = spawn(process.execPath, [resolve('src/app/main.ts')], { cwd: clone, env: testEnv({ DATABASE_URL: undefined, DIST_DIR: resolve('dist') }), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = once(child, 'exit');
    try {
      await expect.poll(() => output, { timeout: 90_000, interval: 100 }).toContain('"msg":"listening"');
      expect(existsSync(join(clone, 'data', 'site.db'))).toBe(true);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    // The same file elsewhere is not created for you.
    mkdirSync(join(clone, 'other'));
    const run = await runToExit({ DATABASE_URL: './missing/site.db' }, { cwd: join(clone, 'other') });
    expect(run.code).toBe(78);
    expect(existsSync(join(clone, 'other', 'missing'))).toBe(false);
  });
});
