/**
 * Start the real server (`node src/app/main.ts`) as a child process on a free port, the way
 * `npm start` runs it, and stop it with a real signal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COMPILE_CACHE_ENV } from './compile-cache.ts';

export interface RunningServer {
  url: string;
  child: ChildProcess;
  /** Every stdout/stderr line so far. */
  output: string[];
  /** Send a signal and wait for exit; resolves with the exit code (null if killed). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  exited: Promise<number | null>;
}

/** A fresh SQLite file in a temp folder. */
export function tempSqliteUrl(): string {
  return join(mkdtempSync(join(tmpdir(), 'site-test-')), 'site.db');
}

/**
 * The environment of a test server: a free port on loopback, a fresh SQLite file, no jobs, and
 * nothing of the caller's environment but PATH and HOME (and the compile cache of
 * test/helpers/compile-cache.ts, which only saves CPU); `undefined` removes a variable.
 */
export function testEnv(env: Record<string, string | undefined> = {}): Record<string, string> {
  const merged: Record<string, string | undefined> = {
    PATH: process.env['PATH'] ?? '',
    HOME: process.env['HOME'] ?? '/tmp',
    ...COMPILE_CACHE_ENV,
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: tempSqliteUrl(),
    NODE_ENV: 'test',
    JOBS_ENABLED: 'false',
    ...env,
  };
  return Object.fromEntries(Object.entries(merged).filter((entry): entry is [string, string] => entry[1] !== undefined));
}

export function startServer(env: Record<string, string> = {}, timeoutMs = 90_000): Promise<RunningServer> {
  const child = spawn(process.execPath, ['src/app/main.ts'], { env: testEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start within ${timeoutMs} ms:\n${output.join('\n')}`));
    }, timeoutMs);
    let buffered = '';
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        output.push(line);
        if (line.includes('"msg":"listening"')) {
          clearTimeout(timer);
          const { url } = JSON.parse(line) as { url: string };
          resolve({
            url,
            child,
            output,
            exited,
            stop: (signal = 'SIGTERM') => {
              if (child.exitCode === null && child.signalCode === null) child.kill(signal);
              return exited;
            },
          });
        }
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${[...output, buffered].join('\n')}`));
    });
  });
}
