/**
 * A supervisor that stops `npm start` or `npm run demo` signals the process it started, npm. npm
 * passes the signal to the script's shell, and a shell that ran node as a child exits without
 * passing it on: node went on serving, orphaned. The scripts `exec` node, so the signal reaches
 * the server, which stops gracefully, and npm exits with its status.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnOwned } from '../helpers/processes.ts';
import { testEnv } from '../helpers/server.ts';

/** Whether a process with this id still exists (signal 0 only checks). */
function alive(pid: number): boolean {
  return spawnSync('kill', ['-0', String(pid)]).status === 0;
}

async function stopByNpmPid(script: string[], env: Record<string, string>, startMs: number): Promise<void> {
  const npm = spawnOwned('npm', script, { env: testEnv(env) });
  let serverPid: number | undefined;
  try {
    await npm.waitForLine(/"msg":"listening"/, startMs);
    const listening = npm.output().split('\n').find((line) => line.includes('"msg":"listening"'))!;
    serverPid = (JSON.parse(listening) as { pid: number }).pid;
    expect(alive(serverPid)).toBe(true);

    // The exit itself is the event awaited; a server left running fails by the test's timeout.
    npm.child.kill('SIGTERM');
    expect(await npm.exited).toBe(0);
    expect(alive(serverPid)).toBe(false);
    expect(npm.output()).toMatch(/"msg":"stopped"/);
  } finally {
    await npm.stop('SIGKILL');
    // A server left behind (the failure this guards against) must not outlive the test.
    if (serverPid !== undefined && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
  }
}

beforeAll(() => {
  mkdirSync('test-results', { recursive: true });
});

describe('`npm start` runs the compiled server', () => {
  it('loads no TypeScript at run time: it serves with type stripping turned off', async () => {
    // Type stripping instantiates a WebAssembly compiler for the life of the process (about
    // 18 MB); with it off, any .ts import would fail the start-up.
    const npm = spawnOwned('npm', ['start'], { env: testEnv({ NODE_OPTIONS: '--no-experimental-strip-types' }) });
    try {
      await npm.waitForLine(/"msg":"listening"/, 20_000);
      const listening = npm.output().split('\n').find((line) => line.includes('"msg":"listening"'))!;
      const { url } = JSON.parse(listening) as { url: string };
      const health = await fetch(`${url}/healthz`);
      expect(health.status).toBe(200);
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
    } finally {
      await npm.stop('SIGTERM');
    }
  });

  it('exits 66 with one line when the build holds no compiled server', () => {
    const empty = mkdtempSync(join('test-results', 'no-bundle-'));
    try {
      const run = spawnSync(process.execPath, ['bin/start.mjs'], { env: testEnv({ DIST_DIR: empty }), encoding: 'utf8' });
      expect(run.status).toBe(66);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(`start-up failed: no Astro build in DIST_DIR (${empty}): run \`npm run build\` first\n`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('stopping the server by the npm process id', () => {
  it('`npm start`: SIGTERM to npm stops the server gracefully and npm exits 0 within seconds', async () => {
    await stopByNpmPid(['start'], {}, 240_000);
  });

  it('`npm run demo` (build, seed, serve): SIGTERM to npm stops the server it ended with, and npm exits 0', async () => {
    // Its own build folder and cache, so the shared dist/ other tests serve is not rebuilt under
    // them; inside the project (test-results/, ignored by git), where the build finds node_modules.
    mkdirSync('test-results', { recursive: true });
    const scratch = mkdtempSync(join('test-results', 'npm-demo-'));
    const dist = join(scratch, 'dist');
    try {
      await stopByNpmPid(['run', 'demo'], { ASTRO_OUT_DIR: dist, DIST_DIR: dist, ASTRO_CACHE_DIR: join(scratch, 'cache'), ASTRO_TELEMETRY_DISABLED: '1' }, 240_000);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 360_000);
});
