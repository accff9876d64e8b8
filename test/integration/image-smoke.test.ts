/**
 * The image's build and runtime stages, performed without Docker by scripts/image-smoke.ts (see
 * there): the real script, the real `npm ci --omit=dev`, the real server. Slow (it installs the
 * production dependencies into a temporary folder), hence the long timeout.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function runSmoke(): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, ['scripts/image-smoke.ts'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, lines: output.trimEnd().split('\n') })));
}

it('builds the runtime image\'s files from the Docker context, migrates, serves /readyz and stops on SIGTERM with 0, leaving nothing behind', { timeout: 600_000 }, async () => {
  const { code, lines } = await runSmoke();
  expect(code, lines.join('\n')).toBe(0);
  expect(lines.at(-1)).toBe('image-smoke: ok');
  for (const step of ['default target runtime', 'RUN npm ci --omit=dev: ok', 'COPY --from=build /app/dist ./dist: ok', 'migrate (node jobs/cli/migrate.ts): ok', 'CMD node src/app/main.ts: /readyz 200', 'HEALTHCHECK: ok', 'SIGTERM: exit 0']) {
    expect(lines.some((line) => line.includes(step)), step).toBe(true);
  }
  const folder = /temporary folder: (\S+)/.exec(lines.join('\n'))?.[1] ?? '';
  expect(folder).not.toBe('');
  expect(existsSync(folder)).toBe(false);
  const pid = Number(/\(pid (\d+)\)/.exec(lines.join('\n'))?.[1]);
  // Signal 0 only checks the process exists: ESRCH once it is gone.
  expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
});
