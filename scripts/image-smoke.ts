/**
 * `node scripts/image-smoke.ts [--root DIR]` (npm run image:smoke): the Dockerfile's build and
 * runtime stages without Docker (which cannot run on this project's CI machine), step by step as
 * written, in a temporary folder standing for the image's /app:
 *   context   the checkout minus what .dockerignore leaves out (COPY sees nothing else)
 *   build     `npm ci` links this checkout's packages (same lock file) instead of downloading
 *             700 MB again; COPY and `astro build` as written
 *   runtime   COPY as written, `npm ci --omit=dev` for real, `node jobs/cli/migrate.ts` on a fresh
 *             SQLite file, then the CMD: /readyz and / answer 200, the HEALTHCHECK passes, SIGTERM
 *             ends it with 0
 * so a file the image misses, a dev dependency the server imports, or node_modules or data/ in the
 * context fails here. An unknown RUN step fails (never run on this machine); those outside /app
 * (mkdir /data, chown) are skipped with the reason. One line per step; exit 0, or 1 on failure.
 * The temporary folder and every process it started are gone when it exits, interrupted or not.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, posix, resolve as resolvePath } from 'node:path';
import { parseArgs } from 'node:util';
import { DockerIgnore, execForm, parseCopy, parseDockerfile, parseEnv, type Instruction, type Stage } from './docker-files.ts';

/** The checkout (the build context); `--root DIR` names another, as the failure tests do. */
let REPO = dirname(import.meta.dirname);
const APP_DIR = '/app';
const children = new Set<ChildProcess>();
let tmp: string | undefined;

function say(line: string): void {
  process.stdout.write(`image-smoke: ${line}\n`);
}

class StepError extends Error {}

/** Every file of the build context, relative to the checkout, with .dockerignore applied. */
function contextFiles(ignore: DockerIgnore): string[] {
  const files: string[] = [];
  const walk = (relative: string): void => {
    for (const entry of readdirSync(join(REPO, relative), { withFileTypes: true })) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!ignore.prunes(path)) walk(path);
      } else if (!ignore.ignores(path)) files.push(path);
    }
  };
  walk('');
  return files;
}

/** COPY of context files: a source names a file or a folder of the context (no wildcards here). */
function copyFromContext(context: string[], sources: string[], destination: string): number {
  let copied = 0;
  for (const source of sources) {
    const clean = posix.normalize(source).replace(/^\.?\/?/, '').replace(/\/$/, '');
    const matches = context.filter((file) => clean === '' || file === clean || file.startsWith(`${clean}/`));
    if (matches.length === 0) throw new StepError(`COPY ${source}: not in the build context (.dockerignore?)`);
    const isFolder = !(matches.length === 1 && matches[0] === clean);
    for (const file of matches) {
      const target = isFolder || sources.length > 1 || destination.endsWith('/')
        ? join(destination, isFolder ? file.slice(clean === '' ? 0 : clean.length + 1) : posix.basename(file))
        : destination;
      mkdirSync(dirname(target), { recursive: true });
      cpSync(join(REPO, file), target);
      copied += 1;
    }
  }
  return copied;
}

interface RunPlan {
  pattern: RegExp;
  action: 'run' | 'link-node-modules' | 'skip';
  why: string;
}

/** What each known RUN command becomes outside Docker. Anything else fails the smoke test. */
const RUN_PLANS: RunPlan[] = [
  { pattern: /^npm ci$/, action: 'link-node-modules', why: "this checkout's packages, installed from the same lock file" },
  { pattern: /^npm ci --omit=dev$/, action: 'run', why: 'production dependencies, from the registry' },
  { pattern: /^npm cache clean --force$/, action: 'skip', why: "it would empty this machine's npm cache" },
  { pattern: /^(?:\w+=\S+ )*npx astro build$/, action: 'run', why: 'the build' },
  { pattern: /^mkdir -p \/(?!app\b)\S+$/, action: 'skip', why: 'outside /app: the smoke test uses a temporary DATABASE_URL' },
  { pattern: /^chown /, action: 'skip', why: 'the smoke test runs as the current user' },
];

/** A child process whose output is kept (shown if it fails) and which is killed on exit. */
function run(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): { child: ChildProcess; output: string[]; exited: Promise<number | null> } {
  // Its own process group, so cleanUp() also reaches what it starts (`sh -c npm ci` runs npm).
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  children.add(child);
  const output: string[] = [];
  child.stdout?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => {
    child.once('error', (error) => {
      output.push(String(error));
      resolve(-1);
    });
    child.once('exit', (code) => {
      children.delete(child);
      resolve(code);
    });
  });
  return { child, output, exited };
}

async function runToEnd(label: string, command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<void> {
  const started = Date.now();
  const { output, exited } = run(command, args, options);
  const code = await exited;
  if (code !== 0) throw new StepError(`${label}: exit ${code}\n${output.join('').trimEnd()}`);
  say(`${label}: ok (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

/** PATH with this Node first, so `npm`, `npx` and their scripts run on the Node running this script. */
function basePath(): string {
  return `${dirname(process.execPath)}:${process.env['PATH'] ?? ''}`;
}

/**
 * The checkout's packages, each linked into the stage's own node_modules, so the build reads them
 * but writes its caches (Astro's node_modules/.astro, Vite's .vite) into the temporary folder,
 * never into the checkout's.
 */
function linkNodeModules(stageDir: string): void {
  mkdirSync(join(stageDir, 'node_modules'));
  for (const entry of readdirSync(join(REPO, 'node_modules'))) {
    if (entry.startsWith('.') && entry !== '.bin') continue;
    symlinkSync(join(REPO, 'node_modules', entry), join(stageDir, 'node_modules', entry));
  }
}

async function performRun(instruction: Instruction, stageDir: string, env: NodeJS.ProcessEnv): Promise<void> {
  for (const command of instruction.args.split('&&').map((part) => part.trim())) {
    const plan = RUN_PLANS.find((candidate) => candidate.pattern.test(command));
    if (!plan) throw new StepError(`RUN ${command} (line ${instruction.line}): not a step image-smoke knows; add it to RUN_PLANS`);
    if (plan.action === 'skip') say(`RUN ${command}: skipped, ${plan.why}`);
    else if (plan.action === 'link-node-modules') {
      linkNodeModules(stageDir);
      say(`RUN ${command}: linked ${plan.why}`);
    } else {
      // Settings that change how npm fetches, not what it installs: the lock file decides that.
      const npm = { npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };
      await runToEnd(`RUN ${command}`, 'sh', ['-c', command], { cwd: stageDir, env: { ...env, ...npm } });
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function pollReady(url: string, exited: Promise<number | null>, timeoutMs: number): Promise<void> {
  let stopped: number | null | undefined;
  void exited.then((code) => (stopped = code));
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (stopped !== undefined) throw new StepError(`the server exited with ${stopped} before /readyz answered 200`);
    const status = await fetch(url).then((response) => response.status, () => 0);
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new StepError(`/readyz did not answer 200 within ${timeoutMs} ms`);
}

async function performStage(stage: Stage, stageDir: string, context: string[], stageDirs: Map<string, string>, env: NodeJS.ProcessEnv): Promise<void> {
  const args: Record<string, string> = {};
  for (const instruction of stage.instructions) {
    const { keyword } = instruction;
    if (keyword === 'WORKDIR' && instruction.args !== APP_DIR) throw new StepError(`WORKDIR ${instruction.args}: image-smoke expects ${APP_DIR}`);
    if (keyword === 'ARG') {
      const [name = '', value = ''] = instruction.args.split('=');
      args[name] = value;
    } else if (keyword === 'ENV') Object.assign(env, parseEnv(instruction.args));
    else if (keyword === 'RUN') await performRun(instruction, stageDir, { ...env, ...args });
    else if (keyword === 'COPY') {
      const copy = parseCopy(instruction.args);
      const destination = join(stageDir, copy.destination);
      if (copy.from === undefined) {
        say(`COPY ${instruction.args}: ${copyFromContext(context, copy.sources, destination)} files`);
        continue;
      }
      const fromDir = stageDirs.get(copy.from);
      if (!fromDir) throw new StepError(`COPY --from=${copy.from}: no such stage before ${stage.name}`);
      for (const source of copy.sources) {
        if (!source.startsWith(`${APP_DIR}/`)) throw new StepError(`COPY --from=${copy.from} ${source}: image-smoke copies only from ${APP_DIR}`);
        const from = join(fromDir, source.slice(APP_DIR.length));
        if (!existsSync(from)) throw new StepError(`COPY --from=${copy.from} ${source}: stage ${copy.from} has no such file`);
        cpSync(from, destination, { recursive: true });
      }
      say(`COPY ${instruction.args}: ok`);
    }
  }
}

async function main(): Promise<void> {
  const stages = parseDockerfile(readFileSync(join(REPO, 'Dockerfile'), 'utf8'));
  const runtime = stages.at(-1);
  const build = stages.find((stage) => stage.name === 'build');
  if (!runtime || !build) throw new StepError('the Dockerfile needs a `build` stage and a last (runtime) stage');
  say(`Dockerfile: stages ${stages.map((stage) => stage.name).join(', ')}; default target ${runtime.name}`);

  const ignore = new DockerIgnore(readFileSync(join(REPO, '.dockerignore'), 'utf8'));
  const context = contextFiles(ignore);
  const bytes = context.reduce((sum, file) => sum + statSync(join(REPO, file)).size, 0);
  const leaked = context.filter((file) => /^(?:data|dist|\.git)\/|(?:^|\/)node_modules\//.test(file));
  if (leaked.length > 0) throw new StepError(`the context carries ${leaked.length} files it must not, e.g. ${leaked[0]}`);
  say(`context: ${context.length} files, ${(bytes / 1e6).toFixed(1)} MB (${ignore.patterns.length} .dockerignore patterns)`);

  tmp = mkdtempSync(join(tmpdir(), 'image-smoke-'));
  say(`temporary folder: ${tmp}`);
  const stageDirs = new Map<string, string>();
  const buildDir = join(tmp, build.name);
  mkdirSync(buildDir);
  await performStage(build, buildDir, context, stageDirs, { PATH: basePath(), HOME: process.env['HOME'] ?? tmp });
  stageDirs.set(build.name, buildDir);

  const appDir = join(tmp, runtime.name);
  mkdirSync(appDir);
  const env: NodeJS.ProcessEnv = { PATH: basePath(), HOME: process.env['HOME'] ?? tmp };
  await performStage(runtime, appDir, context, stageDirs, env);

  // The image's /data volume and 0.0.0.0:4321 become a temporary file and a free loopback port.
  const imagePort = env['PORT'] ?? '4321';
  const port = await freePort();
  mkdirSync(join(tmp, 'data'));
  Object.assign(env, { DATABASE_URL: join(tmp, 'data', 'site.db'), HOST: '127.0.0.1', PORT: String(port) });
  await runToEnd('migrate (node jobs/cli/migrate.ts)', process.execPath, ['jobs/cli/migrate.ts'], { cwd: appDir, env });

  const cmd = runtime.instructions.findLast((instruction) => instruction.keyword === 'CMD');
  const argv = cmd && execForm(cmd.args);
  if (!argv || argv[0] !== 'node') throw new StepError('the runtime stage needs an exec-form CMD ["node", ...]');
  const server = run(process.execPath, argv.slice(1), { cwd: appDir, env });
  const started = Date.now();
  try {
    await pollReady(`http://127.0.0.1:${port}/readyz`, server.exited, 30_000);
  } catch (error) {
    throw new StepError(`${(error as Error).message}\n${server.output.join('').trimEnd()}`);
  }
  say(`CMD ${argv.join(' ')}: /readyz 200 after ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${server.child.pid})`);

  // A page from the build the image carries, not only the probe.
  const home = await fetch(`http://127.0.0.1:${port}/`);
  const body = await home.text();
  if (home.status !== 200 || !body.includes('<html')) throw new StepError(`GET /: ${home.status}, not the home page`);
  say(`GET /: 200, ${body.length} characters of HTML`);

  const healthcheck = runtime.instructions.findLast((instruction) => instruction.keyword === 'HEALTHCHECK');
  const probe = healthcheck && execForm(healthcheck.args.replace(/^(?:--\S+\s+)*CMD\s+/, ''));
  if (probe?.[0] === 'node') {
    const args = probe.slice(1).map((arg) => arg.replaceAll(`:${imagePort}/`, `:${port}/`));
    await runToEnd('HEALTHCHECK', process.execPath, args, { cwd: appDir, env });
  }

  server.child.kill('SIGTERM');
  const code = await server.exited;
  if (code !== 0) throw new StepError(`SIGTERM: the server exited with ${code}\n${server.output.join('').trimEnd()}`);
  say('SIGTERM: exit 0');
}

/** Synchronous, so it also runs from a signal handler: kill what is left, remove the folder. */
function cleanUp(): void {
  for (const child of children) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  if (tmp) rmSync(tmp, { recursive: true, force: true });
}

if (import.meta.main) {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    process.once(signal, () => {
      cleanUp();
      say(`interrupted by ${signal}`);
      process.exit(code);
    });
  }
  try {
    const { values } = parseArgs({ options: { root: { type: 'string' } } });
    if (values.root !== undefined) REPO = resolvePath(values.root);
    await main();
    say('ok');
  } catch (error) {
    say(`FAILED ${error instanceof StepError ? error.message : (error as Error).stack}`);
    process.exitCode = 1;
  } finally {
    cleanUp();
  }
}
