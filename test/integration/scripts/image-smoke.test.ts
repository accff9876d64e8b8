/**
 * The image's build and runtime stages, performed without Docker by scripts/image-smoke.ts (see
 * there): the real script, the real `npm ci --omit=dev`, the real server. Slow (it installs the
 * production dependencies into a temporary folder), hence the long timeout.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

function runSmoke(args: string[] = []): Promise<{ code: number | null; lines: string[] }> {
  const child = spawn(process.execPath, ['scripts/image-smoke.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, lines: output.trimEnd().split('\n') })));
}

it('builds the runtime image\'s files from the Docker context, migrates, serves /readyz and stops on SIGTERM with 0, leaving nothing behind', { timeout: 600_000 }, async () => {
  const { code, lines } = await runSmoke();
  expect(code, lines.join('\n')).toBe(0);
  expect(lines.at(-1)).toBe('image-smoke: ok');
  for (const step of ['default target runtime', 'RUN npm ci --omit=dev: ok', 'COPY --from=build /app/dist ./dist: ok', 'migrate (node jobs/cli/migrate.ts): ok', 'CMD node bin/start.mjs: /readyz 200', 'GET /: 200', 'HEALTHCHECK: ok', 'SIGTERM: exit 0']) {
    expect(lines.some((line) => line.includes(step)), step).toBe(true);
  }
  const folder = /temporary folder: (\S+)/.exec(lines.join('\n'))?.[1] ?? '';
  expect(folder).not.toBe('');
  expect(existsSync(folder)).toBe(false);
  const pid = Number(/\(pid (\d+)\)/.exec(lines.join('\n'))?.[1]);
  // Signal 0 only checks the process exists: ESRCH once it is gone.
  expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
});

/** Runs the smoke test on a made-up context: `files` maps paths to contents. */
async function smokeOn(files: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const root = mkdtempSync(join(tmpdir(), 'image-smoke-context-'));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(join(root, path, '..'), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const { code, lines } = await runSmoke(['--root', root]);
    return { code, output: lines.join('\n') };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

const STAGES = 'FROM node:24 AS build\nWORKDIR /app\nCOPY . .\n';

it('fails before copying anything when .dockerignore lets node_modules into the context', async () => {
  const { code, output } = await smokeOn({ Dockerfile: `${STAGES}FROM node:24 AS runtime\n`, '.dockerignore': 'dist\n', 'node_modules/x/index.js': '' });
  expect(code).toBe(1);
  expect(output).toContain('FAILED the context carries 1 files it must not, e.g. node_modules/x/index.js');
});

it('refuses a RUN step it does not know instead of running it, and removes its temporary folder', async () => {
  const { code, output } = await smokeOn({ Dockerfile: `${STAGES}RUN curl -fsSL https://example.com/install.sh | sh\nFROM node:24 AS runtime\n`, '.dockerignore': '', 'a.txt': '' });
  expect(code).toBe(1);
  expect(output).toContain("FAILED RUN curl -fsSL https://example.com/install.sh | sh (line 4): not a step image-smoke knows");
  const folder = /temporary folder: (\S+)/.exec(output)?.[1] ?? '';
  expect(folder).not.toBe('');
  expect(existsSync(folder)).toBe(false);
});
