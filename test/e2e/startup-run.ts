/**
 * Run `node src/app/main.ts` to its exit, with the environment test/helpers/server.ts uses, and
 * keep stdout and stderr apart: start-up failures promise exactly one line on stderr.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { testEnv } from '../helpers/server.ts';

export { testEnv };

export const SECRET = 's3cr3t-pw';
export const MAIN = resolve('src/app/main.ts');

export interface Run {
  /** Exit status; null when killed at the time limit. */
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Start main.ts and wait for it to exit on its own, killing it after `limitMs`. */
export function runToExit(env: Record<string, string | undefined>, { limitMs = 90_000, cwd }: { limitMs?: number; cwd?: string } = {}): Promise<Run> {
  const started = performance.now();
  const child = spawn(process.execPath, [MAIN], { env: testEnv(env), cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), limitMs);
  return new Promise((resolvePromise) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** The lines of a stream's text, without the final newline's empty item. */
export function linesOf(text: string): string[] {
  return text.split('\n').filter((line, i, all) => !(line === '' && i === all.length - 1));
}
