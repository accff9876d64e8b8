/**
 * The Dockerfile, compose.yaml and .dockerignore checked on their text, since Docker cannot run
 * on this project's CI machine (scripts/image-smoke.ts, run by test/integration/scripts/image-smoke.test.ts,
 * performs the stages themselves). compose.yaml is read with `yaml` (Compose files are YAML 1.2,
 * anchors and aliases included), which Astro's Vite already brings.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DockerIgnore, execForm, parseCopy, parseDockerfile, parseEnv, type Stage } from '../../scripts/docker-files.ts';
import { startCommand } from '../../bench/lib/start-command.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

const stages = parseDockerfile(read('Dockerfile'));
const runtime = stages.at(-1) as Stage;
const ignore = new DockerIgnore(read('.dockerignore'));

interface ComposeService {
  build?: string | { context?: string; target?: string };
  image?: string;
  command?: string[];
}
const compose = parse(read('compose.yaml')) as { services: Record<string, ComposeService> };

/** The repository folders and files the runtime stage copies from the context. */
function runtimeCopies(): string[] {
  return runtime.instructions
    .filter((instruction) => instruction.keyword === 'COPY')
    .map((instruction) => parseCopy(instruction.args))
    .filter((copy) => copy.from === undefined)
    .flatMap((copy) => copy.sources);
}

/** Whether the runtime image holds a repository file: copied itself or inside a copied folder. */
function inRuntimeImage(file: string): boolean {
  return runtimeCopies().some((source) => file === source || file.startsWith(`${source.replace(/\/$/, '')}/`));
}

describe('Dockerfile', () => {
  it('has the stages build, proxy and runtime, the last (the default target of `docker build .`) being the Node runtime', () => {
    expect(stages.map((stage) => stage.name)).toEqual(['build', 'proxy', 'runtime']);
    expect(runtime.image).toMatch(/^node:24\b/);
    expect(stages.find((stage) => stage.name === 'proxy')?.image).toMatch(/^nginx:/);
  });

  it('runs a file the runtime image holds, as a non-root user', () => {
    const cmd = execForm(runtime.instructions.findLast((instruction) => instruction.keyword === 'CMD')?.args ?? '');
    expect(cmd?.[0]).toBe('node');
    const entry = cmd?.[1] ?? '';
    expect(existsSync(join(ROOT, entry)), entry).toBe(true);
    expect(inRuntimeImage(entry), `${entry} is not copied into the runtime stage`).toBe(true);
    expect(runtime.instructions.findLast((instruction) => instruction.keyword === 'USER')?.args).toBe('node');
  });

  it('installs production dependencies only in the runtime stage and probes the port it exposes', () => {
    const runs = runtime.instructions.filter((instruction) => instruction.keyword === 'RUN').map((instruction) => instruction.args);
    expect(runs.some((run) => /\bnpm ci --omit=dev\b/.test(run))).toBe(true);
    const env = Object.assign({}, ...runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => parseEnv(i.args))) as Record<string, string>;
    expect(env['NODE_ENV']).toBe('production');
    expect(runtime.instructions.find((instruction) => instruction.keyword === 'EXPOSE')?.args).toBe(env['PORT']);
    expect(runtime.instructions.find((instruction) => instruction.keyword === 'HEALTHCHECK')?.args).toContain(`127.0.0.1:${env['PORT']}/readyz`);
  });
});

describe('Dockerfile and npm start', () => {
  it('run the server with the same memory settings (V8 flags, malloc arenas)', () => {
    const start = startCommand(ROOT);
    const env = Object.assign({}, ...runtime.instructions.filter((i) => i.keyword === 'ENV').map((i) => parseEnv(i.args))) as Record<string, string>;
    expect(start.memoryFlags.length).toBeGreaterThan(0);
    expect(env['NODE_OPTIONS']?.split(/\s+/)).toEqual(start.memoryFlags);
    for (const [name, value] of Object.entries(start.env)) expect(env[name], name).toBe(value);
  });
});

describe('compose.yaml', () => {
  const built = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
  const target = (service: ComposeService) => (typeof service.build === 'object' ? service.build.target : undefined);

  it('builds every service that runs node from the runtime stage and the proxy from the proxy stage', () => {
    expect(built.map(([name]) => name).sort()).toEqual(['app1', 'app2', 'migrate', 'proxy']);
    for (const [name, service] of built) {
      const runsNode = service.command === undefined ? name !== 'proxy' : service.command[0] === 'node';
      expect(target(service), name).toBe(runsNode ? 'runtime' : 'proxy');
    }
  });

  it('runs only files the runtime image holds', () => {
    for (const [name, service] of built.filter(([, service]) => service.command?.[0] === 'node')) {
      const file = service.command?.[1] ?? '';
      expect(existsSync(join(ROOT, file)), `${name}: ${file}`).toBe(true);
      expect(inRuntimeImage(file), `${name}: ${file}`).toBe(true);
    }
  });
});

describe('.dockerignore', () => {
  it('leaves out installed dependencies, build output, local data and the repository history', () => {
    for (const path of ['node_modules', 'node_modules/astro/package.json', 'bench/node_modules/x', 'dist/server/entry.mjs', '.astro/data-store.json', 'data/site.db', 'site.db-wal', 'test/fixtures/x.db', '.git/HEAD', 'test-results/a.png', 'coverage/index.html']) {
      expect(ignore.ignores(path), path).toBe(true);
    }
  });

  it('keeps every tracked file the build and the runtime read', () => {
    const tracked = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    expect(tracked.filter((file) => ignore.ignores(file))).toEqual(['.dockerignore', '.gitignore']);
  });

  it('follows Docker\'s rules: patterns are rooted, `**` spans folders, a folder takes its contents, the last `!` wins', () => {
    const rules = new DockerIgnore('*.db\n**/*.log\ncache\n!cache/keep.txt\n# comment\n/abs/\n');
    expect(rules.ignores('a.db')).toBe(true);
    expect(rules.ignores('sub/a.db')).toBe(false);
    expect(rules.ignores('sub/deep/x.log')).toBe(true);
    expect(rules.ignores('x.log')).toBe(true);
    expect(rules.ignores('cache/a/b')).toBe(true);
    expect(rules.ignores('cache/keep.txt')).toBe(false);
    expect(rules.prunes('cache')).toBe(false);
    expect(rules.ignores('abs/x')).toBe(true);
    expect(rules.ignores('# comment')).toBe(false);
  });
});
