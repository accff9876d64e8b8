/**
 * A newcomer's first hour, checked: every shell command README.md shows (its ```sh blocks and
 * the indented command lines of "Operations") is run as written in a fresh clone of this
 * repository's HEAD, and its documented result is checked. One line per command; exit 1 if any
 * failed, 2 if README.md shows a command this script has no expectation for (add one below).
 *
 *   node scripts/first-hour.ts [--full] [--keep]
 *
 * The first command (`npm ci && npm run demo`) is the one `npm ci` and runs in the background for
 * the curl examples, on the port it documents (4321, which must be free). The commands run with
 * the caller's PATH minus any node_modules/.bin, as in a new shell, so the system Node.js (20
 * here) runs npm and the README's claim that every npm script runs on the pinned Node 24 is
 * tested too. `--full` also runs `npm test` (the whole suite, tens of minutes, which .ci/run
 * runs anyway); `--keep` leaves the clone for a look.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';

const REPO = resolve(import.meta.dirname, '..');
const ORIGIN = 'http://127.0.0.1:4321';

export interface ReadmeCommand {
  line: number;
  command: string;
}

/** The commands of README.md: ```sh blocks (continuation lines joined, comment lines dropped) and Operations' indented lines. */
export function readmeCommands(readme: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  let fence: string | undefined;
  let section = '';
  let pending: ReadmeCommand | undefined;
  readme.split('\n').forEach((text, index) => {
    const line = index + 1;
    const opening = /^```(\w*)/.exec(text);
    if (opening) {
      fence = fence === undefined ? opening[1] : undefined;
      return;
    }
    if (fence === undefined && text.startsWith('## ')) section = text;
    const inSh = fence === 'sh' && text.trim() !== '' && !text.trimStart().startsWith('#');
    const indented = fence === undefined && section.startsWith('## Operations') && /^ {4}\S/.test(text);
    if (!inSh && !indented) return;
    const part = text.trim();
    pending = pending ? { line: pending.line, command: `${pending.command} ${part.replace(/\\$/, '').trim()}` } : { line, command: part.replace(/\\$/, '').trim() };
    if (!part.endsWith('\\')) {
      commands.push(pending);
      pending = undefined;
    }
  });
  return commands;
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

type Check = (result: Result, clone: string) => string | undefined;

interface Expectation {
  /** The README command, as written. */
  command: RegExp;
  /** Runs under the demo server, or is not run, with the reason. */
  how: 'background' | 'run' | { skip: string };
  check?: Check;
  /** Prepares what the command needs but README.md does not supply. */
  before?: (clone: string) => void;
}

const ok: Check = (r) => (r.code === 0 ? undefined : `exit ${r.code}: ${lastLine(r.stderr || r.stdout)}`);
const all = (...checks: Check[]): Check => (r, clone) => checks.map((check) => check(r, clone)).find((problem) => problem !== undefined);
const contains = (...fragments: string[]): Check => (r) => {
  const missing = fragments.filter((fragment) => !r.stdout.includes(fragment));
  return missing.length === 0 ? undefined : `output lacks ${missing.map((m) => JSON.stringify(m)).join(', ')}: ${r.stdout.slice(0, 200)}`;
};
const json = (test: (body: any) => string | undefined): Check => (r) => {
  try {
    return test(JSON.parse(r.stdout));
  } catch {
    return `not JSON: ${r.stdout.slice(0, 200)}`;
  }
};

/** The README's days of seeded data: the seed generates the 400 days before today (UTC). */
const daysBack = (isoDay: string) => Math.round((Date.now() - Date.parse(`${isoDay}T00:00:00Z`)) / 86_400_000);

export const EXPECTATIONS: Expectation[] = [
  { command: /^npm ci && npm run demo\b/, how: 'background' },
  { command: /^npm ci && npm test\b/, how: { skip: 'the whole suite (tens of minutes on 2 cores), which .ci/run runs itself; --full runs it here' }, check: ok },
  { command: /\/api\/news \| head -c 300$/, how: 'run', check: all(ok, contains('[{"id":', '"heading":')) },
  { command: /\/sellers\.json \| head -c 300$/, how: 'run', check: all(ok, contains('"contact_email"', '"version": "1.0"')) },
  {
    command: /public\/data\?startDate=2026-10-01&endDate=2026-10-07'$/,
    how: 'run',
    check: all(ok, json((body) => (body.status === 'Success' && Array.isArray(body.data) && body.data.length === 7 ? undefined : `expected 7 days of data (the seed covers ${daysBack('2026-10-01') <= 400 ? 'them' : 'not them: they are over 400 days old'}), got ${JSON.stringify(body).slice(0, 200)}`))),
  },
  { command: /-X POST http:\/\/127\.0\.0\.1:4321\/api\/contact /, how: 'run', check: all(ok, json((body) => (body.success === true ? undefined : `not {"success":true}: ${JSON.stringify(body)}`))) },
  { command: /-X POST http:\/\/127\.0\.0\.1:4321\/api\/chat /, how: 'run', check: all(ok, (r) => (r.stdout.trim().length > 0 && !/"status":\s*[45]\d\d/.test(r.stdout) ? undefined : `no reply streamed: ${r.stdout.slice(0, 200)}`)) },
  { command: /\/healthz; curl -s http:\/\/127\.0\.0\.1:4321\/readyz$/, how: 'run', check: all(ok, (r) => (/ok/i.test(r.stdout) ? undefined : `unexpected health answers: ${r.stdout.slice(0, 200)}`)) },
  {
    command: /^npm run news:new -- "Q1 2026 transparency report"$/,
    how: 'run',
    check: all(ok, contains('content/news/q1-2026-transparency-report.md'), (_r, clone) => (existsSync(join(clone, 'content/news/q1-2026-transparency-report.md')) ? undefined : 'the article file was not created')),
  },
  {
    command: /^npm run events:import -- events\.ndjson$/,
    how: 'run',
    // README.md names the file but supplies none: three records in the documented format.
    before: (clone) =>
      writeFileSync(
        join(clone, 'events.ndjson'),
        ['{"id":"fh-1","occurred_at":"2026-03-01T23:59:59.999Z","kind":"transaction","revenue":"12.34"}', '{"id":"fh-2","occurred_at":1772409600000,"kind":"impression","revenue":""}', '{"id":"fh-3","occurred_at":"2026-03-02T10:00:00+01:00","kind":"transaction","revenue":"0.5"}', ''].join('\n'),
      ),
    check: ok,
  },
  { command: /^npm run stats:materialize -- --from 2026-01-01 --to 2026-01-31$/, how: 'run', check: ok },
  { command: /^npm run stats:materialize -- --missing\b/, how: 'run', check: ok },
  {
    command: /^curl -i 'http:\/\/127\.0\.0\.1:4321\/api\/v1\/public\/data\?startDate=2026-01-01&endDate=2026-01-31'$/,
    how: 'run',
    check: all(ok, (r) => (/^HTTP\/1\.1 200 /.test(r.stdout) ? undefined : `status line ${r.stdout.split('\r\n')[0]}`), (r) => {
      const missing = ['x-ratelimit-remaining', 'x-ratelimit-reset', 'x-daily-quota-remaining', 'x-data-settled-through'].filter((h) => !r.stdout.toLowerCase().includes(`\r\n${h}:`));
      return missing.length === 0 ? undefined : `headers missing: ${missing.join(', ')}`;
    }, (r) => (r.stdout.includes('"status":"Success"') ? undefined : `body: ${r.stdout.slice(-200)}`)),
  },
  {
    command: /^npm run -s data:fetch -- --from 2025-01-01 --to 2025-12-31 > 2025\.csv$/,
    how: 'run',
    check: all(ok, (_r, clone) => {
      const csv = existsSync(join(clone, '2025.csv')) ? readFileSync(join(clone, '2025.csv'), 'utf8') : '';
      if (/^date,txn_count,impr_count,service_revenue\r?\n\d{4}-\d\d-\d\d,/.test(csv)) return undefined;
      // `npm run` writes its "> package@version script" banner to stdout, so it lands in the file.
      if (/^\s*> /.test(csv)) return `2025.csv starts with npm's banner lines, not the CSV header (npm run writes them to stdout: \`npm run -s data:fetch\` would not)`;
      return `2025.csv does not start with the CSV header: ${JSON.stringify(csv.slice(0, 80))}`;
    }),
  },
  {
    command: /^npm run contact:erase -- --email Ada@Example\.com$/,
    how: 'run',
    // Runs after "Try it" submitted ada@example.com to the demo: at least that one goes.
    check: all(ok, (r) => (/^erased [1-9]\d* submissions? and 0 pending webhook deliveries of Ada@Example\.com \(address matched case-insensitively\) from sqlite:/m.test(r.stdout) ? undefined : `unexpected output: ${r.stdout.slice(-200)}`)),
  },
  { command: /--base-url https:\/\/data\.example /, how: { skip: 'https://data.example is a placeholder (the .example domain is reserved, RFC 2606): there is no server to fetch from' } },
];

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.slice(0, 200) ?? '';
}

/** A new shell's environment: nothing of this project's, and no node_modules/.bin on PATH. */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
  for (const name of Object.keys(env)) {
    if (/^(npm_|NODE_ENV$|PORT$|HOST$|DATABASE_URL$|SITE_URL$|DIST_DIR$|REDIS_URL$|ASTRO_|LLM_|JOBS_ENABLED$)/.test(name) && name !== 'ASTRO_TELEMETRY_DISABLED') delete env[name];
  }
  env['PATH'] = (env['PATH'] ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules')).join(delimiter);
  return env;
}

function run(command: string, cwd: string, timeoutMs = 300_000): Promise<Result> {
  return new Promise((done) => {
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: newcomerEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

function portFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once('error', () => done(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => done(true)));
  });
}

/** Start the background command in its own process group; resolves once the server listens. */
function startDemo(command: string, cwd: string, timeoutMs: number): Promise<{ stop: () => Promise<string>; problem?: string }> {
  const child = spawn('/bin/sh', ['-c', command], { cwd, env: newcomerEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  // Ctrl-C in the terminal: SIGINT to the whole process group (sh, npm, node).
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGINT');
    await exited;
    return output;
  };
  return new Promise((done) => {
    const timer = setTimeout(() => done({ stop, problem: `not listening after ${timeoutMs / 1000} s: ${lastLine(output)}` }), timeoutMs);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (/"msg":"listening"/.test(output)) {
        clearTimeout(timer);
        done({ stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      done({ stop, problem: `exited ${code} before listening: ${lastLine(output)}` });
    });
  });
}

async function main(): Promise<number> {
  const full = process.argv.includes('--full');
  const keep = process.argv.includes('--keep');
  const commands = readmeCommands(readFileSync(join(REPO, 'README.md'), 'utf8'));
  const started = performance.now();
  const clone = mkdtempSync(join(tmpdir(), 'first-hour-'));
  const say = (status: string, c: ReadmeCommand, note = '') => process.stdout.write(`${status.padEnd(4)} README.md:${c.line}  ${c.command.length > 90 ? `${c.command.slice(0, 87)}...` : c.command}${note ? `  -- ${note}` : ''}\n`);
  const plan = commands.map((c) => ({ c, e: EXPECTATIONS.find((e) => e.command.test(c.command)) }));
  const unknown = plan.filter((p) => p.e === undefined);
  for (const { c } of unknown) say('??', c, 'no expectation in scripts/first-hour.ts: add one');
  if (unknown.length > 0) return 2;

  let failed = 0;
  const cloned = spawnSync('git', ['clone', '--quiet', REPO, clone], { encoding: 'utf8' });
  if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
  process.stdout.write(`clone of ${spawnSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()} in ${clone}\n`);
  let demo: Awaited<ReturnType<typeof startDemo>> | undefined;
  try {
    for (const { c, e } of plan) {
      const t0 = performance.now();
      const took = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
      if (typeof e!.how === 'object' && !(full && e!.check)) {
        say('skip', c, e!.how.skip);
        continue;
      }
      if (e!.how === 'background') {
        if (!(await portFree(4321))) {
          say('FAIL', c, `port 4321 is in use on this machine: the demo cannot listen where README.md says`);
          return 1;
        }
        demo = await startDemo(c.command, clone, 600_000);
        if (demo.problem) {
          say('FAIL', c, demo.problem);
          return 1;
        }
        say('ok', c, `${ORIGIN} listening after ${took()} (npm ci, build, seed)`);
        continue;
      }
      e!.before?.(clone);
      const result = await run(c.command, clone, full ? 3_600_000 : 300_000);
      const problem = e!.check!(result, clone);
      if (problem) failed++;
      say(problem ? 'FAIL' : 'ok', c, problem ?? took());
    }
    if (demo) {
      const stopped = /"msg":"stopped"/.test(await demo.stop());
      process.stdout.write(`${stopped ? 'ok  ' : 'FAIL'} the demo server ${stopped ? 'stopped gracefully' : 'did not log "stopped"'} on Ctrl-C (SIGINT)\n`);
      if (!stopped) failed++;
    }
  } finally {
    await demo?.stop();
    if (!keep) rmSync(clone, { recursive: true, force: true });
  }
  process.stdout.write(`${failed === 0 ? 'all documented commands behave as README.md says' : `${failed} failed`} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
  return failed === 0 ? 0 : 1;
}

if (import.meta.main) process.exitCode = await main();
