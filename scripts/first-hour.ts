/**
 * A newcomer's first hour, checked: every shell command that README.md and the guides of docs/
 * show (their ```sh blocks) is run as written in a fresh clone of this repository's HEAD, and its
 * documented result is checked; every relative link between those documents must resolve (file
 * and heading anchor), and no command may send `npm run`'s banner into a file. One line per
 * command; exit 1 if any failed, 2 if a document shows a command this script has no expectation
 * for (add one below).
 *
 *   node scripts/first-hour.ts [--full] [--keep]
 *
 * The documents are read from the clone, i.e. as committed. README.md comes first, then the guides
 * by name. Its first command (`npm ci && npm run demo`) is the one `npm ci` and runs in the
 * background for the curl examples, on the port it documents (4321, which must be free). The
 * commands run with the caller's PATH minus any node_modules/.bin, as in a new shell, so the
 * system Node.js (20 here) runs npm and the README's claim that every npm script runs on the
 * pinned Node 24 is tested too. `--full` also runs `npm test` (the whole suite, tens of minutes,
 * which .ci/run runs anyway); `--keep` leaves the clone for a look.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { bannerRedirects, documentFiles, linkProblems, shellCommands, type DocCommand } from './markdown-docs.ts';

const REPO = resolve(import.meta.dirname, '..');
const ORIGIN = 'http://127.0.0.1:4321';

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

type Check = (result: Result, clone: string) => string | undefined;

interface Expectation {
  /** The documented command, as written. */
  command: RegExp;
  /** Runs under the demo server, or is not run, with the reason. */
  how: 'background' | 'run' | { skip: string };
  check?: Check;
  /** Prepares what the command needs but the documents do not supply. */
  before?: (clone: string) => void;
}

const ok: Check = (r) => (r.code === 0 ? undefined : `exit ${r.code}: ${lastLine(r.stderr || r.stdout)}`);
const exits = (code: number): Check => (r) => (r.code === code ? undefined : `exit ${r.code}, not ${code}: ${lastLine(r.stderr || r.stdout)}`);
const all = (...checks: Check[]): Check => (r, clone) => checks.map((check) => check(r, clone)).find((problem) => problem !== undefined);
const contains = (...fragments: string[]): Check => (r) => {
  const missing = fragments.filter((fragment) => !r.stdout.includes(fragment));
  return missing.length === 0 ? undefined : `output lacks ${missing.map((m) => JSON.stringify(m)).join(', ')}: ${r.stdout.slice(0, 200)}`;
};
/** The output ends with a line break, so the shell's prompt (or the next command's output) starts a line of its own. */
const endsLine: Check = (r) => (r.stdout.endsWith('\n') ? undefined : `output does not end with a newline: ...${JSON.stringify(r.stdout.slice(-60))}`);
const json = (test: (body: any) => string | undefined): Check => (r) => {
  try {
    return test(JSON.parse(r.stdout));
  } catch {
    return `not JSON: ${r.stdout.slice(0, 200)}`;
  }
};
/** The file a command redirected its output to holds what `test` expects, and not npm's banner. */
const cleanFile = (name: string, test: (text: string) => string | undefined): Check => (_r, clone) => {
  const text = existsSync(join(clone, name)) ? readFileSync(join(clone, name), 'utf8') : undefined;
  if (text === undefined) return `${name} was not written`;
  // `npm run` without -s writes its "> package@version script" banner to stdout, so it lands in the file.
  if (/^\s*> /.test(text)) return `${name} starts with npm's banner lines (npm run writes them to stdout: \`npm run -s\` would not)`;
  return test(text);
};
const daysOfData = (count: number): Check =>
  json((body) => (body.status === 'Success' && Array.isArray(body.data) && body.data.length === count ? undefined : `expected ${count} days of data (the seed holds the 400 days up to yesterday), got ${JSON.stringify(body).slice(0, 200)}`));

/** The shell's `$(date -u -d 'N days ago' +%F)`, as the documents write relative dates. */
const daysAgo = (n: number) => `\\$\\(date -u -d '${n} days? ago' \\+%F\\)`;

export const EXPECTATIONS: Expectation[] = [
  // README.md
  { command: /^npm ci && npm run demo\b/, how: 'background' },
  { command: /^npm ci && npm test\b/, how: { skip: 'the whole suite (tens of minutes on 2 cores), which .ci/run runs itself; --full runs it here' }, check: ok },
  { command: /\/api\/news \| head -c 300; echo$/, how: 'run', check: all(ok, endsLine, contains('[{"id":', '"heading":')) },
  { command: /\/sellers\.json \| head -c 300; echo$/, how: 'run', check: all(ok, endsLine, contains('"contact_email"', '"version": "1.0"')) },
  { command: new RegExp(`^curl -s "http://127\\.0\\.0\\.1:4321/api/v1/public/data\\?startDate=${daysAgo(7)}&endDate=${daysAgo(1)}"; echo$`), how: 'run', check: all(ok, endsLine, daysOfData(7)) },
  { command: /-X POST http:\/\/127\.0\.0\.1:4321\/api\/contact .*; echo$/, how: 'run', check: all(ok, endsLine, json((body) => (body.success === true ? undefined : `not {"success":true}: ${JSON.stringify(body)}`))) },
  { command: /-X POST http:\/\/127\.0\.0\.1:4321\/api\/chat .*; echo$/, how: 'run', check: all(ok, endsLine, (r) => (r.stdout.trim().length > 0 && !/"status":\s*[45]\d\d/.test(r.stdout) ? undefined : `no reply streamed: ${r.stdout.slice(0, 200)}`)) },
  { command: /\/openapi\.json \| head -c 300; echo$/, how: 'run', check: all(ok, endsLine, (r) => (/^\{\s*"openapi":\s*"3\.1\./.test(r.stdout) ? undefined : `not the OpenAPI 3.1 document: ${r.stdout.slice(0, 120)}`)) },
  {
    command: /\/healthz; echo; curl -s http:\/\/127\.0\.0\.1:4321\/readyz; echo$/,
    how: 'run',
    check: all(ok, endsLine, contains('"status":"ok"', '"status":"ready"'), (r) => (r.stdout.split('\n').filter(Boolean).length === 2 ? undefined : `expected two answers, one line each: ${r.stdout.slice(0, 200)}`)),
  },

  // docs/restatements.md
  {
    command: /^url="http:\/\/127\.0\.0\.1:4321\/api\/v1\/public\/data\?startDate=.*-H "If-None-Match: \$etag" "\$url"$/,
    how: 'run',
    check: all(ok, endsLine, (r) => (/^ETag: "[^"]+"\n304\n$/.test(r.stdout) ? undefined : `expected the tag, then 304: ${r.stdout.slice(0, 200)}`)),
  },

  // docs/editors.md
  {
    command: /^npm run news:new -- "Q1 2026 transparency report"$/,
    how: 'run',
    check: all(ok, contains('content/news/q1-2026-transparency-report.md'), (_r, clone) => (existsSync(join(clone, 'content/news/q1-2026-transparency-report.md')) ? undefined : 'the article file was not created')),
  },
  {
    command: /^npm run -s sellers:verify -- --timeout-ms 5000$/,
    how: 'run',
    // The sample sellers' .example domains (RFC 2606) resolve nowhere: every one with a domain is unreachable.
    check: all(exits(69), (r) => {
      const lines = r.stdout.split('\n').filter(Boolean);
      const odd = lines.filter((line) => !/^(unreachable|skipped) /.test(line));
      return lines.length > 0 && odd.length === 0 ? undefined : `expected only unreachable and skipped sellers: ${r.stdout.slice(0, 200)}`;
    }),
  },

  // docs/integrators.md
  {
    command: new RegExp(`^curl -i "http://127\\.0\\.0\\.1:4321/api/v1/public/data\\?startDate=${daysAgo(31)}&endDate=${daysAgo(1)}"$`),
    how: 'run',
    check: all(ok, (r) => (/^HTTP\/1\.1 200 /.test(r.stdout) ? undefined : `status line ${r.stdout.split('\r\n')[0]}`), (r) => {
      const missing = ['x-ratelimit-remaining', 'x-ratelimit-reset', 'x-daily-quota-remaining', 'x-data-settled-through'].filter((h) => !r.stdout.toLowerCase().includes(`\r\n${h}:`));
      return missing.length === 0 ? undefined : `headers missing: ${missing.join(', ')}`;
    }, (r) => daysOfData(31)({ ...r, stdout: r.stdout.slice(r.stdout.indexOf('\r\n\r\n') + 4) }, '')),
  },
  { command: /^npm run -s api-keys -- create --name "Acme Corp" --minute 600 --day 50000$/, how: 'run', check: all(ok, (r) => (/^adk_[A-Za-z0-9_-]{43}\n$/.test(r.stdout) ? undefined : `stdout is not the token alone: ${JSON.stringify(r.stdout.slice(0, 120))}`)) },
  { command: /^npm run -s api-keys -- list$/, how: 'run', check: all(ok, contains('Acme Corp', '600/min', '50000/day', 'active')) },
  {
    command: new RegExp(`^npm run -s data:fetch -- --from "${daysAgo(90)}" --to "${daysAgo(1)}" > stats\\.csv$`),
    how: 'run',
    check: all(
      ok,
      cleanFile('stats.csv', (csv) => {
        const lines = csv.trimEnd().split(/\r?\n/);
        return lines[0] === 'date,txn_count,impr_count,service_revenue' && lines.length === 91 && /^\d{4}-\d\d-\d\d,\d+,\d+,\d+\.\d\d$/.test(lines[1] ?? '') ? undefined : `stats.csv is not the header and 90 days: ${JSON.stringify(csv.slice(0, 120))}, ${lines.length} lines`;
      }),
    ),
  },
  { command: /--base-url https:\/\/data\.example /, how: { skip: 'https://data.example is a placeholder (the .example domain is reserved, RFC 2606): there is no server to fetch from' } },
  { command: /^node examples\/contact-altcha\.mjs http:\/\/127\.0\.0\.1:4321$/, how: 'run', check: all(ok, contains('challenge: 204 (the check is off)\n', 'contact: 200 {"success":true}\n')) },

  // docs/operators.md
  {
    command: /^psql -v ON_ERROR_STOP=1 -c "CREATE ROLE adtech LOGIN PASSWORD 'change-me'" -c "CREATE DATABASE adtech OWNER adtech"$/,
    how: 'run',
    // The guide's names on whatever server PGHOST/PGPORT/PGUSER name (the suite's private one in CI): start from none.
    before: () => {
      for (const tool of ['dropdb', 'dropuser']) spawnSync(tool, ['--if-exists', 'adtech'], { env: newcomerEnv(), stdio: 'ignore' });
    },
    check: ok,
  },
  {
    command: /^DATABASE_URL="postgres:\/\/adtech:change-me@\$\{PGHOST:-localhost\}:\$\{PGPORT:-5432\}\/adtech" npm run migrate$/,
    how: 'run',
    check: all(ok, contains('is up to date')),
  },
  {
    command: /^npm run -s db:copy -- --from \.\/data\/site\.db --to "postgres:\/\/adtech:change-me@\$\{PGHOST:-localhost\}:\$\{PGPORT:-5432\}\/adtech"$/,
    how: 'run',
    check: all(ok, contains("every table's count matches", 'event: ')),
  },
  {
    command: /^npm run -s fleet:nginx -- --listen 0\.0\.0\.0:80 --upstream 10\.0\.0\.11:4321 --upstream 10\.0\.0\.12:4321 --dist \/srv\/site\/dist\/client > nginx\.conf$/,
    how: 'run',
    check: all(ok, cleanFile('nginx.conf', (conf) => (conf.startsWith('#') && conf.includes('    server 10.0.0.12:4321 ') && conf.includes('root /srv/site/dist/client;') ? undefined : `nginx.conf is not the rendered configuration: ${JSON.stringify(conf.slice(0, 120))}`))),
  },
  {
    command: /^npm run -s fleet:nginx -- --listen 0\.0\.0\.0:80 --tls-listen 0\.0\.0\.0:443 --tls-cert \/etc\/ssl\/site\/fullchain\.pem --tls-key \/etc\/ssl\/site\/privkey\.pem --server-name ads\.example\.com --upstream 10\.0\.0\.11:4321 --dist \/srv\/site\/dist\/client > nginx\.conf$/,
    how: 'run',
    check: all(ok, cleanFile('nginx.conf', (conf) => (conf.includes('listen 0.0.0.0:443 ssl http2;') && conf.includes('return 301 https://ads.example.com$request_uri;') && conf.includes('Strict-Transport-Security') ? undefined : `nginx.conf is not the TLS configuration: ${JSON.stringify(conf.slice(0, 120))}`))),
  },
  {
    command: /^npm run -s contact:export -- --bom > contacts\.csv$/,
    how: 'run',
    // Runs after the README's "Try it" stored a submission of Ada's.
    check: all(ok, cleanFile('contacts.csv', (csv) => (/^\uFEFFid,submitted_at,name,[^\n]*\r?\n[\s\S]*Ada Lovelace/.test(csv) ? undefined : `contacts.csv is not the BOM, the header and the submissions: ${JSON.stringify(csv.slice(0, 120))}`))),
  },
  // The demo has no webhook and no mail server: there are no deliveries to list or send again.
  { command: /^npm run -s contact:deliveries -- --state failed$/, how: 'run', check: all(ok, (r) => (r.stdout === '' && /^0 deliveries listed; in all 0 pending, 0 failed, 0 delivered, in sqlite:/.test(r.stderr) ? undefined : `unexpected output: ${JSON.stringify(r.stdout.slice(0, 120))} ${JSON.stringify(r.stderr.slice(0, 200))}`)) },
  { command: /^npm run -s contact:redeliver -- --since 2026-11-01T00:00:00Z$/, how: 'run', check: all(ok, contains('made 0 deliveries of submissions since 2026-11-01T00:00:00.000Z due now; any running outbox sends them')) },
  // "Try it" stored no spam: the header alone.
  { command: /^npm run -s contact:export -- --spam \| head -n 3$/, how: 'run', check: all(ok, (r) => (r.stdout === 'id,submitted_at,name,job_title,work_email,priority,message,delivery_status,delivered_at,spam_reason\r\n' ? undefined : `not the CSV header alone: ${JSON.stringify(r.stdout.slice(0, 200))}`)) },
  {
    command: /^npm run contact:erase -- --email Ada@Example\.com$/,
    how: 'run',
    // Runs after "Try it" and the ALTCHA example submitted ada@example.com to the demo: at least those go.
    check: all(ok, (r) => (/^erased [1-9]\d* submissions? and 0 pending deliveries of Ada@Example\.com \(address matched case-insensitively\) from sqlite:/m.test(r.stdout) ? undefined : `unexpected output: ${r.stdout.slice(-200)}`)),
  },
  {
    command: /^npm run -s admin:invite -- --name "Ada Lovelace"$/,
    how: 'run',
    check: all(ok, (r) => (/^https?:\/\/[^/\s]+\/admin\/enrol\/#[A-Za-z0-9_-]{43}\n$/.test(r.stdout) ? undefined : `stdout is not the link alone: ${JSON.stringify(r.stdout.slice(0, 120))}`)),
  },
  { command: /^npm run -s admin:sessions$/, how: 'run', check: all(ok, contains('operators (0):\n', 'live sessions (0):\n')) },
  { command: /^npm run -s admin:sessions -- --revoke all$/, how: 'run', check: all(ok, (r) => (/^ended \d+ sessions?\n$/.test(r.stdout) ? undefined : `unexpected output: ${r.stdout.slice(0, 120)}`)) },
  {
    command: /^npm run events:import -- events\.ndjson$/,
    how: 'run',
    // The guide names the file and shows its format, but supplies none: three records in that format.
    before: (clone) =>
      writeFileSync(
        join(clone, 'events.ndjson'),
        ['{"id":"fh-1","occurred_at":"2026-03-01T23:59:59.999Z","kind":"transaction","revenue":"12.34"}', '{"id":"fh-2","occurred_at":1772409600000,"kind":"impression","revenue":""}', '{"id":"fh-3","occurred_at":"2026-03-02T10:00:00+01:00","kind":"transaction","revenue":"0.5"}', ''].join('\n'),
      ),
    check: ok,
  },
  { command: new RegExp(`^npm run stats:materialize -- --from "${daysAgo(40)}" --to "${daysAgo(10)}"$`), how: 'run', check: ok },
  { command: /^npm run stats:materialize -- --missing\b/, how: 'run', check: ok },
  // docs/operators.md, "Backup and restore": the drill, against the demo server still running.
  {
    command: /^npm run -s backup -- --out site-backup\.db$/,
    how: 'run',
    check: all(ok, endsLine, contains('backed up sqlite (schema at ', ' to site-backup.db, '), (_r, clone) => (existsSync(join(clone, 'site-backup.db.manifest.json')) ? undefined : 'no manifest beside the backup')),
  },
  { command: /^npm run -s backup:verify -- site-backup\.db$/, how: 'run', check: all(ok, endsLine, contains('ok site-backup.db: sqlite backup taken ', 'checksum ok', '(current)')) },
  // Runs after the drill's curl stored a submission of Grace's, which the backup holds.
  { command: /^npm run contact:erase -- --email grace@example\.com$/, how: 'run', check: all(ok, (r) => (/^erased 1 submission and 0 pending deliveries of grace@example\.com /m.test(r.stdout) ? undefined : `unexpected output: ${r.stdout.slice(-200)}`)) },
  {
    command: /^DATABASE_URL=\.\/data\/drill\.db ERASURE_LEDGER=\.\/data\/site\.db\.erasure-ledger npm run -s restore -- site-backup\.db$/,
    how: 'run',
    // Ada's erasure (Retention and erasure) and Grace's are replayed; Grace was in the backup.
    check: all(ok, endsLine, (r) => (/^restored site-backup\.db .* into \.\/data\/drill\.db; replayed 2 erasures from \.\/data\/site\.db\.erasure-ledger: 1 submission erased again\n$/.test(r.stdout) ? undefined : `unexpected output: ${r.stdout.slice(0, 300)}`)),
  },
  {
    command: /^DATABASE_URL="postgres:\/\/adtech:change-me@\$\{PGHOST:-localhost\}:\$\{PGPORT:-5432\}\/adtech" npm run -s backup -- --out site-backup\.dump$/,
    how: 'run',
    check: all(ok, endsLine, contains('backed up postgres (schema at ', ' to site-backup.dump, ')),
  },
  { command: /^npm run -s backup:verify -- site-backup\.dump$/, how: 'run', check: all(ok, endsLine, contains('ok site-backup.dump: postgres backup taken ', 'checksum ok', '(current)')) },
  { command: /^npm run -s restore -- site-backup\.db$/, how: 'run', check: all(exits(75), (r) => (/^restore: .*\/data\/site\.db is open in another process \(a running server\?\): stop it, then restore\n$/.test(r.stderr) ? undefined : `unexpected stderr: ${r.stderr.slice(0, 300)}`)) },
  // docs/operators.md, Monitoring (promtool: Debian's prometheus package, installed by test/system-deps.sh)
  { command: /^promtool check rules deploy\/prometheus\/alerts\.yml$/, how: 'run', check: all(ok, contains('SUCCESS: 9 rules found')) },
  { command: /^promtool test rules deploy\/prometheus\/alerts\.test\.yml$/, how: 'run', check: all(ok, contains('SUCCESS')) },
];

/**
 * Untracked files that are no gap in .gitignore: what this script writes itself (an
 * Expectation's `before`, which a reader would have written), and the article `news:new` creates
 * for the editor to commit.
 */
const WRITTEN_HERE = new Set(['events.ndjson', 'content/news/q1-2026-transparency-report.md']);

/**
 * Files the documented commands left in `clone` that git would offer to commit: each is a gap in
 * .gitignore (a build to `dist-2`, `> nginx.conf`, `> contacts.csv` full of personal data).
 */
export function leftovers(clone: string): string[] {
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: clone, encoding: 'utf8' });
  if (status.status !== 0) throw new Error(`git status failed: ${status.stderr}`);
  return status.stdout
    .split('\n')
    .filter((line) => line.startsWith('?? '))
    .map((line) => line.slice(3))
    .filter((file) => !WRITTEN_HERE.has(file));
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1)?.slice(0, 200) ?? '';
}

/**
 * Caches that save CPU and change no result, set by `main` for the commands it runs:
 * - NODE_COMPILE_CACHE: the ~35 commands on Node 24 load the same modules (run-cli, the
 *   configuration, kysely, zod) and each compiled and type-stripped them anew; with Node's compile
 *   cache a command's start costs about a third less CPU. An entry is checked against its source's
 *   hash, so nothing stale is ever run. A folder of this run's own, removed with the clone.
 * - npm_config_prefer_offline: the lockfile names no `resolved` URLs (this machine's npm writes
 *   none), so `npm ci` asks the registry again for the metadata of all 700 packages, and then for
 *   each tarball, and parses megabytes of JSON: about 36 s of CPU. What it installs is pinned by
 *   the lockfile's integrity hashes whatever the cache's age, so the cached copies install the
 *   same bytes for a third less CPU (24 s); a package absent from the cache is still fetched.
 */
let caches: NodeJS.ProcessEnv = {};

/** A new shell's environment: nothing of this project's, and no node_modules/.bin on PATH (and the caches above). */
function newcomerEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' };
  for (const name of Object.keys(env)) {
    if (/^(npm_|NODE_ENV$|PORT$|HOST$|DATABASE_URL$|SITE_URL$|DIST_DIR$|REDIS_URL$|ASTRO_|LLM_|JOBS_ENABLED$)/.test(name) && name !== 'ASTRO_TELEMETRY_DISABLED') delete env[name];
  }
  env['PATH'] = (env['PATH'] ?? '').split(delimiter).filter((dir) => !dir.includes('node_modules')).join(delimiter);
  return { ...env, ...caches };
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

/** A repository file's text for the link check: undefined when there is no such path, '' for a folder. */
function reader(root: string): (path: string) => string | undefined {
  return (path) => {
    const full = join(root, path);
    if (!existsSync(full)) return undefined;
    return statSync(full).isDirectory() ? '' : readFileSync(full, 'utf8');
  };
}

type Say = (status: string, c: DocCommand, note?: string) => void;

/** Checks that need nothing run: every relative link resolves, and no command sends npm's banner into a file. Returns the failures. */
function checkDocuments(clone: string, files: readonly string[], say: Say): number {
  const read = reader(clone);
  const { checked, problems } = linkProblems(files, read);
  for (const p of problems) say('FAIL', { file: p.file, line: p.line, command: `link ${p.target}` }, p.problem);
  if (problems.length === 0) process.stdout.write(`ok   ${checked} relative links between ${files.join(', ')} resolve\n`);
  const banners = files.flatMap((file) => bannerRedirects(read(file) ?? '', file));
  for (const c of banners) say('FAIL', c, "npm run without -s writes npm's banner into the file: write npm run -s");
  return problems.length + banners.length;
}

/** Runs the planned commands in the clone, the demo in the background; returns the failures. */
async function runCommands(plan: { c: DocCommand; e: Expectation }[], clone: string, full: boolean, say: Say): Promise<number> {
  let failed = 0;
  let demo: Awaited<ReturnType<typeof startDemo>> | undefined;
  try {
    for (const { c, e } of plan) {
      const t0 = performance.now();
      const took = () => `${((performance.now() - t0) / 1000).toFixed(1)} s`;
      if (typeof e.how === 'object' && !(full && e.check)) {
        say('skip', c, e.how.skip);
        continue;
      }
      if (e.how === 'background') {
        if (!(await portFree(4321))) {
          say('FAIL', c, `port 4321 is in use on this machine: the demo cannot listen where README.md says`);
          return failed + 1;
        }
        demo = await startDemo(c.command, clone, 600_000);
        if (demo.problem) {
          say('FAIL', c, demo.problem);
          return failed + 1;
        }
        say('ok', c, `${ORIGIN} listening after ${took()} (npm ci, build, seed)`);
        continue;
      }
      e.before?.(clone);
      const result = await run(c.command, clone, full ? 3_600_000 : 300_000);
      const problem = e.check!(result, clone);
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
  }
  return failed;
}

async function main(): Promise<number> {
  const full = process.argv.includes('--full');
  const keep = process.argv.includes('--keep');
  const started = performance.now();
  const clone = mkdtempSync(join(tmpdir(), 'first-hour-'));
  const compileCache = mkdtempSync(join(tmpdir(), 'first-hour-compile-cache-'));
  caches = { NODE_COMPILE_CACHE: compileCache, npm_config_prefer_offline: 'true' };
  const say: Say = (status, c, note = '') => process.stdout.write(`${status.padEnd(4)} ${c.file}:${c.line}  ${c.command.length > 90 ? `${c.command.slice(0, 87)}...` : c.command}${note ? `  -- ${note}` : ''}\n`);
  try {
    const cloned = spawnSync('git', ['clone', '--quiet', REPO, clone], { encoding: 'utf8' });
    if (cloned.status !== 0) throw new Error(`git clone failed: ${cloned.stderr}`);
    process.stdout.write(`clone of ${spawnSync('git', ['-C', REPO, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim()} in ${clone}\n`);
    const files = documentFiles(clone);
    const commands = files.flatMap((file) => shellCommands(readFileSync(join(clone, file), 'utf8'), file));
    const plan = commands.map((c) => ({ c, e: EXPECTATIONS.find((e) => e.command.test(c.command)) }));
    const unknown = plan.filter((p) => p.e === undefined);
    for (const { c } of unknown) say('??', c, 'no expectation in scripts/first-hour.ts: add one');
    if (unknown.length > 0) return 2;

    let failed = checkDocuments(clone, files, say) + (await runCommands(plan as { c: DocCommand; e: Expectation }[], clone, full, say));
    const untracked = leftovers(clone);
    process.stdout.write(untracked.length === 0 ? 'ok   the commands left no file that .gitignore does not cover\n' : `FAIL the commands left files that .gitignore does not cover: ${untracked.slice(0, 10).join(', ')}\n`);
    if (untracked.length > 0) failed++;
    process.stdout.write(`${failed === 0 ? `all documented commands behave as ${files.join(', ')} say` : `${failed} failed`} (${((performance.now() - started) / 1000).toFixed(0)} s)\n`);
    return failed === 0 ? 0 : 1;
  } finally {
    if (!keep) rmSync(clone, { recursive: true, force: true });
    rmSync(compileCache, { recursive: true, force: true });
  }
}

if (import.meta.main) process.exitCode = await main();
