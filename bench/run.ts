/**
 * The benchmark suite: every scenario beside its baseline, medians over alternating
 * rounds, a table on stdout and in bench/RESULTS.md.
 *
 *   npm run bench                       # full: 3 rounds of 10 s, 10 million events (~15 min)
 *   npm run bench -- --quick            # 1 round of 2 s, 1 million events (< 2 min)
 *   npm run bench -- --only=data-hit,chat
 *   npm run bench -- --only=scale       # the scale table alone (~10 min: a 5,000-article build)
 *   npm run bench -- --only=search      # site search at 10, 1,000, 5,000 articles (~4 min)
 *   npm run bench -- --quick --profile  # also profile targets not met (the full run always does)
 *   npm run bench -- --render           # rewrite RESULTS.md from the last full run (after editing NOTES.md)
 *
 * Only a full run of every scenario replaces bench/RESULTS.md; --quick and --only runs write
 * theirs into their work folder.
 *
 * Scenario ids for --only: the HTTP ones in scenarios/http.ts, and chat, junk-flood, write-lock, materialize, build, scale, search.
 * --quick leaves scale out unless --only names it (then 10 and 1,000 articles, short floods).
 * The cache-hit and 429 scenarios also run the Fastify peer (peers/fastify.ts) in the same rounds.
 * Everything it creates lives in a fresh /tmp/bench-run-XXXXXX (a seeded database, a build, logs,
 * profiles); ./dist and ./data are never touched. One run at a time (a lock file): two would
 * distort each other's figures.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database as Schema } from '../src/db/schema.ts';
import { formatDay, parseDay } from '../src/lib/calendar.ts';
import { readDailyStats } from '../src/features/stats/stats.server.ts';
import { load, timeToFirstByte, type LoadResult } from './lib/load.ts';
import { canPin, hasCommand, pinned, pinSelf, runCommand, startServer, type Running } from './lib/proc.ts';
import { profileIn, profileMarkdown, summarise } from './lib/profile.ts';
import { renderResults, type Results } from './lib/report.ts';
import { settingsFor } from './lib/settings.ts';
import { startCommand } from './lib/start-command.ts';
import { commitOf, machine } from './lib/system.ts';
import { runAstroBuild } from './scenarios/astro-build.ts';
import { runChat } from './scenarios/chat.ts';
import { runWriteLock } from './scenarios/write-lock.ts';
import { HTTP_SCENARIOS, loadSpec, runHttpScenario, type HttpContext, type HttpOutcome, type Instances } from './scenarios/http.ts';
import { compareWithCli, prepareEvents, profileMaterialize, rematerializeDay, SQLITE_CLI_MISSING } from './scenarios/materialize.ts';
import { floodPaths, runScale } from './scenarios/scale.ts';
import { runJunkFlood } from './scenarios/junk-flood.ts';
import { runContactFlood } from './scenarios/contact-flood.ts';
import { runSearch } from './scenarios/search.ts';

const repo = resolve(import.meta.dirname, '..');
process.chdir(repo);
const { values: flags } = parseArgs({ options: { quick: { type: 'boolean', default: false }, profile: { type: 'boolean', default: false }, render: { type: 'boolean', default: false }, only: { type: 'string' } } });
const settings = settingsFor(flags.quick ?? false);
const only = flags.only ? new Set(flags.only.split(',')) : undefined;
/** Scale takes minutes (a 5,000-article build): in a quick run only when --only names it. */
const wanted = (id: string) => (only ? only.has(id) : id !== 'scale' || !settings.quick);
const serving = () => HTTP_SCENARIOS.some((s) => wanted(s.id)) || wanted('chat') || wanted('junk-flood') || wanted('contact-flood');
/** CPU profiles of targets not met: always in the full run; in quick mode only when asked (they take a while). */
const profiling = !settings.quick || (flags.profile ?? false);
const workDir = flags.render ? '' : mkdtempSync(join(tmpdir(), 'bench-run-'));
/** The last full run's figures, for --render. */
const lastResults = join(tmpdir(), 'bench-last-results.json');
/** Only a full run of every scenario replaces bench/RESULTS.md; quick and partial runs report beside their work. */
const official = !settings.quick && !only;
const lockFile = join(tmpdir(), 'bench-run.lock');
const say = (line: string) => process.stdout.write(`${line}\n`);

/** Rate limits far out of the way, so throughput scenarios measure the limiter, never a refusal. */
const HIGH_LIMITS = Object.fromEntries(
  ['SITE_MINUTE', 'PAGE_MINUTE', 'CHAT_MINUTE', 'CHAT_DAY', 'CONTACT_HOUR', 'CONTACT_DAY', 'DATA_MINUTE', 'DATA_DAY'].map((w) => [`RATE_LIMIT_${w}`, '1000000000']),
);

function serverEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env['PATH'] ?? '',
    NODE_ENV: 'production',
    LOG_LEVEL: 'info', // logging is part of what is measured
    HOST: '127.0.0.1',
    PORT: '0',
    DATABASE_URL: join(workDir, 'site.db'),
    DIST_DIR: join(workDir, 'dist'),
    JOBS_ENABLED: 'false',
    ...HIGH_LIMITS,
    ...extra,
  };
}

const INSTANCE_ENV: Record<'main' | 'nocache' | 'limited' | 'defaults' | 'metrics' | 'metrics-off' | 'proxied', Record<string, string>> = {
  main: serverEnv(),
  // As main, trusting the load generator as its proxy: X-Forwarded-For names the client (scenarios/contact-flood.ts).
  proxied: serverEnv({ TRUST_PROXY: '127.0.0.1' }),
  // The default rate limits (scenarios/junk-flood.ts): a flood must meet them.
  defaults: Object.fromEntries(Object.entries(serverEnv()).filter(([name]) => !name.startsWith('RATE_LIMIT_'))),
  nocache: serverEnv({ RESPONSE_CACHE_MAX_BYTES: '1' }),
  limited: serverEnv({ RATE_LIMIT_SITE_MINUTE: '1', RATE_LIMIT_DATA_MINUTE: '1', RATE_LIMIT_DATA_DAY: '1' }),
  // The others leave METRICS_TOKEN unset: no registry, nothing recorded (the metrics-off baseline).
  metrics: serverEnv({ METRICS_TOKEN: 'bench-metrics-token-0123456789abcdef0123456789abcdef' }),
  // As main, loaded by data-hit-metrics only: as JIT-cold as `metrics` when that scenario starts. Main,
  // warmed by the scenarios before it, ran a fresh copy of itself 1.2 x faster (bench/NOTES.md, "Metrics cost").
  'metrics-off': serverEnv(),
};

/** As `npm start` runs it (its env and node flags), plus the instance's settings and any profiling flags. */
function startInstance(name: keyof typeof INSTANCE_ENV, nodeFlags: readonly string[] = []): Promise<Running> {
  const start = startCommand(repo);
  return startServer({ name: `server (${name})`, args: [...nodeFlags, ...start.args], env: { ...start.env, ...INSTANCE_ENV[name] }, logFile: join(workDir, `server-${name}.log`) });
}

/** The SQL kysely sends for the data endpoint's query, captured from a real call. */
async function dataQuerySql(file: string): Promise<string> {
  let captured = '';
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: new Database(file, { readonly: true }) }), log: (event) => void (captured = event.query.sql) });
  await readDailyStats(db, '2000-01-01', '2000-01-31');
  await db.destroy();
  return captured;
}

function dataPaths(file: string): { settledPath: string; rangePaths: string[] } {
  const conn = new Database(file, { readonly: true });
  const { first, last } = conn.prepare('SELECT min(day) AS first, max(day) AS last FROM daily_stat').get() as { first: string; last: string };
  conn.close();
  const path = (start: number) => `/api/v1/public/data?startDate=${formatDay(start)}&endDate=${formatDay(start + 30)}`;
  const rangePaths: string[] = [];
  for (let start = parseDay(first); start + 30 <= parseDay(last); start++) rangePaths.push(path(start));
  return { settledPath: path(parseDay(first)), rangePaths };
}

/** The seeded database (servers, scale) and the site's build (servers), side by side. */
async function prepare(): Promise<void> {
  const seeding = serving() || wanted('scale');
  const building = serving();
  // The build's server chunks import packages: resolution walks up from <workDir>/dist.
  symlinkSync(join(repo, 'node_modules'), join(workDir, 'node_modules'));
  if (!seeding && !building) return;
  say(`preparing in ${workDir}: ${[seeding ? 'seeding the database' : '', building ? 'building the site (astro build)' : ''].filter(Boolean).join(' and ')}${seeding && building ? ' side by side' : ''}`);
  const ok = { code: 0, ms: 0, stdout: '', stderr: '' };
  const [seed, build] = await Promise.all([
    seeding ? runCommand(...pinned('0,1', process.execPath, ['jobs/cli/seed.ts']), { env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: join(workDir, 'site.db') } }) : ok,
    building
      ? runCommand(...pinned('0,1', process.execPath, ['node_modules/astro/bin/astro.mjs', 'build']), {
          env: { ...(process.env as Record<string, string>), ASTRO_OUT_DIR: join(workDir, 'dist'), ASTRO_CACHE_DIR: join(workDir, 'astro-cache') },
        })
      : ok,
  ]);
  if (seed.code !== 0) throw new Error(`seeding failed:\n${seed.stderr || seed.stdout}`);
  if (build.code !== 0) throw new Error(`astro build failed:\n${(build.stderr || build.stdout).split('\n').slice(-30).join('\n')}`);
  if (seeding) say(`  ${seed.stdout.trim()}`);
  if (building) say(`  astro build: ${(build.ms / 1000).toFixed(1)} s`);
}

async function main(): Promise<void> {
  const started = new Date();
  if (!canPin) say('warning: taskset or a second core is missing; servers and load generator share the CPU');
  if (!hasCommand('sqlite3')) say(`warning: ${SQLITE_CLI_MISSING}; the materialization comparison will be skipped`);
  pinSelf();
  const results: Results = { settings, machine: machine(repo), started, http: [], rss: [], profiles: [] };
  await prepare();

  if (serving()) await runServers(results);
  if (wanted('junk-flood')) {
    say('running junk-flood: long and missing paths from one client, default limits, fresh server');
    const server = await startInstance('defaults');
    try {
      results.junkFlood = await runJunkFlood(server, settings);
    } finally {
      await server.stop();
    }
    const j = results.junkFlood;
    say(`  ${Math.round(j.result.rps)} req/s, statuses ${JSON.stringify(j.result.statuses)}; RSS idle ${j.idleMb.toFixed(1)} MB, peak ${j.peakMb.toFixed(1)} MB, ${j.settledMb.toFixed(1)} MB after; log ${(j.logBytes / 1e6).toFixed(1)} MB: ${j.met ? 'met' : 'NOT met'}${j.invalid ? ` (${j.invalid})` : ''}`);
  }
  if (wanted('contact-flood')) {
    say(`running contact-flood: valid submissions from ${settings.scale.clients.toLocaleString('en')} distinct clients, fresh server`);
    const server = await startInstance('proxied');
    try {
      results.contactFlood = await runContactFlood(server, settings);
    } finally {
      await server.stop();
    }
    const c = results.contactFlood;
    say(`  ${Math.round(c.result.rps)} req/s, statuses ${JSON.stringify(c.result.statuses)}; RSS idle ${c.idleMb.toFixed(1)} MB, peak ${c.peakMb.toFixed(1)} MB, ${c.settledMb.toFixed(1)} MB after: ${c.met ? 'met' : 'NOT met'}${c.invalid ? ` (${c.invalid})` : ''}`);
  }

  if (wanted('materialize')) {
    say(`materialization: writing ${settings.events.toLocaleString('en')} events over ${settings.days} days`);
    const t = performance.now();
    const plan = await prepareEvents(workDir, settings);
    say(`  written in ${((performance.now() - t) / 1000).toFixed(1)} s; materialize() against the sqlite3 CLI`);
    results.materialize = await compareWithCli(plan, settings);
    say(`  ${JSON.stringify(results.materialize)}`);
    results.day = await rematerializeDay(plan, settings);
    say(`  one day of ${results.day.events} events: ${results.day.ms.map((ms) => ms.toFixed(1)).join(', ')} ms`);
    if (profiling && results.materialize.ratio !== undefined && !results.materialize.met) {
      const dir = join(workDir, 'profiles', 'materialize');
      await profileMaterialize(plan, dir);
      const file = profileIn(dir);
      if (file) results.profiles.push(profileMarkdown(`materialize(): ${settings.events.toLocaleString('en')} events`, summarise(file)));
    }
    rmSync(plan.file, { force: true }); // up to a gigabyte
  }
  if (wanted('build')) {
    say(`astro build with ${settings.articles} extra news articles`);
    results.build = await runAstroBuild(repo, workDir, settings.articles);
    say(`  ${results.build.seconds.toFixed(1)} s${results.build.error ? `: ${results.build.error}` : ''}`);
  }
  if (wanted('scale')) {
    say(`scale: ${settings.scale.sizes.map((n) => n.toLocaleString('en')).join(', ')} generated articles; floods of ${settings.scale.clients.toLocaleString('en')} clients and of one`);
    const db = join(workDir, 'site.db');
    results.scale = await runScale({
      repo,
      workDir,
      settings,
      seededDb: db,
      floodPaths: floodPaths(dataPaths(db).rangePaths),
      serverEnv,
      ownArticles: readdirSync(join(repo, 'content', 'news')).filter((f) => f.endsWith('.md')).length,
      commit: commitOf(repo),
      say,
    });
    say(`  took ${Math.round(results.scale.seconds)} s`);
  }

  if (wanted('search')) {
    const sizes = settings.quick ? [10, 1_000] : [10, 1_000, 5_000];
    say(`search: builds with ${sizes.map((n) => n.toLocaleString('en')).join(', ')} generated articles, index size and bytes per query`);
    results.search = await runSearch({ repo, workDir, sizes, say });
    say(`  took ${Math.round(results.search.seconds)} s`);
  }

  results.finished = new Date();
  results.loadAfter = loadavg();
  results.commitAfter = commitOf(repo);
  if (official) writeFileSync(lastResults, JSON.stringify(results));
  writeResults(results, official ? join(repo, 'bench', 'RESULTS.md') : join(workDir, 'RESULTS.md'));
  // Keep the profiles RESULTS.md points to; drop the bulky rest.
  for (const big of ['site.db', 'site.db-wal', 'site.db-shm', 'dist', 'site-copy', 'search-copy', 'astro-cache', 'server-main.log', 'server-nocache.log', 'server-limited.log', 'server-defaults.log']) {
    rmSync(join(workDir, big), { recursive: true, force: true });
  }
}

/** Refuse to start beside another run: each would measure the other's load. */
function takeLock(): void {
  if (existsSync(lockFile)) {
    const pid = Number(readFileSync(lockFile, 'utf8'));
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch {
      // Stale lock of a run that died.
    }
    if (alive) {
      rmSync(workDir, { recursive: true, force: true });
      throw new Error(`another benchmark (pid ${pid}) is running; wait for it (lock ${lockFile})`);
    }
  }
  writeFileSync(lockFile, String(process.pid));
  process.on('exit', () => rmSync(lockFile, { force: true }));
}

/** RESULTS.md from the figures and the hand-written bench/NOTES.md; the tables also to stdout. */
function writeResults(results: Results, file: string): void {
  const notesFile = join(repo, 'bench', 'NOTES.md');
  const markdown = renderResults(results, existsSync(notesFile) ? readFileSync(notesFile, 'utf8') : undefined);
  writeFileSync(file, markdown);
  say(`\n${markdown.slice(markdown.indexOf('## Results'), markdown.indexOf('## Method'))}`);
  say(`written to ${file}${file.startsWith(repo) ? '' : ' (bench/RESULTS.md is only replaced by a full run of every scenario)'}`);
}

/** The HTTP scenarios and the chat against four server instances, then their peak RSS. */
async function runServers(results: Results): Promise<void> {
  const db = join(workDir, 'site.db');
  const instances: Instances = {
    main: await startInstance('main'),
    nocache: await startInstance('nocache'),
    limited: await startInstance('limited'),
    metrics: await startInstance('metrics'),
    metricsOff: await startInstance('metrics-off'),
    query: await startServer({ name: 'query baseline', args: ['bench/baselines.ts', 'query', db, await dataQuerySql(db)], env: { PATH: process.env['PATH'] ?? '' }, logFile: join(workDir, 'query.log') }),
  };
  const context: HttpContext = { instances, ...dataPaths(db), settings, workDir };
  try {
    for (const scenario of HTTP_SCENARIOS.filter((s) => wanted(s.id))) {
      say(`running ${scenario.id}: ${scenario.name}`);
      const outcome = await runHttpScenario(scenario, context);
      results.http.push(outcome);
      const fig = (r: LoadResult) => `${r.rps.toFixed(0)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms, server CPU ${Math.round((r.serverCpu ?? 0) * 100)} % (${Math.round(r.cpuUsPerRequest ?? 0)} us/req), load gen ${Math.round(r.loadGenCpu * 100)} %`;
      const vs = outcome.baseline ? ` | ${scenario.baseline}: ${fig(outcome.baseline)} | ${outcome.ratio!.toFixed(2)} x` : '';
      const peer = outcome.peer ? ` | Fastify peer: ${fig(outcome.peer)} | ${outcome.peerRatio!.toFixed(2)} x` : '';
      say(`  ours: ${fig(outcome.ours)}${vs}${peer}: ${outcome.met ? 'met' : 'NOT met'}${outcome.invalid ? ` (${outcome.invalid})` : ''}`);
    }
    if (wanted('chat')) {
      say('running chat: POST /api/chat time to first byte');
      results.chat = await runChat(instances.main, settings);
      say(`  TTFB p50 ${results.chat.result.p50.toFixed(1)} ms, p99 ${results.chat.result.p99.toFixed(1)} ms: ${results.chat.met ? 'met' : 'NOT met'}`);
    }
    // Last on the main instance: it holds the database's write lock for a few seconds.
    if (wanted('write-lock')) {
      say('running write-lock: /healthz, a read and contacts while another process holds the SQLite write lock');
      results.writeLock = await runWriteLock(instances.main, db, context.settledPath);
      const w = results.writeLock;
      say(`  /healthz ${w.healthzMs.map((m) => m.toFixed(1)).join(', ')} ms; read ${w.readMs.toFixed(1)} ms; contacts ${w.contactStatuses.join(', ')} after ${w.contactMs.map((m) => m.toFixed(0)).join(', ')} ms: ${w.met ? 'met' : 'NOT met'}${w.invalid ? ` (${w.invalid})` : ''}`);
    }
  } finally {
    for (const [name, server] of Object.entries(instances)) {
      if (name !== 'query') results.rss.push({ name: server.name, mb: server.peakRssMb() });
      await server.stop();
    }
  }
  if (profiling) await profileUnmet(results.http, context, results);
}

/** For each HTTP or chat target not met: a CPU profile of a fresh server under the same load. */
async function profileUnmet(outcomes: readonly HttpOutcome[], context: HttpContext, results: Results): Promise<void> {
  const jobs: Array<{ id: string; title: string; instance: keyof typeof INSTANCE_ENV; drive: (server: Running) => Promise<unknown> }> = [];
  for (const o of outcomes.filter((x) => !x.met && !x.invalid)) {
    jobs.push({ id: o.scenario.id, title: o.scenario.name, instance: o.scenario.instance, drive: (server) => load(loadSpec(o.scenario, context, server.url, settings.seconds)) });
  }
  if (results.chat && !results.chat.met && !results.chat.invalid) {
    jobs.push({
      id: 'chat',
      title: 'POST /api/chat (built-in assistant)',
      instance: 'main',
      drive: (server) =>
        timeToFirstByte({ url: `${server.url}/api/chat`, headers: { 'content-type': 'application/json', origin: server.url }, bodies: [JSON.stringify({ messages: [{ role: 'user', content: 'How do I use the data API?' }] })], workers: settings.chatWorkers, seconds: settings.seconds }),
    });
  }
  for (const job of jobs) {
    const dir = join(workDir, 'profiles', job.id);
    say(`profiling ${job.id} (node --cpu-prof)`);
    const server = await startInstance(job.instance, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    const microseconds = () => Number(process.hrtime.bigint() / 1000n);
    let window: [number, number];
    try {
      const from = microseconds();
      await job.drive(server);
      window = [from, microseconds()];
    } finally {
      await server.stop();
    }
    const file = profileIn(dir);
    if (file) results.profiles.push(profileMarkdown(`${job.title} (samples while under load only)`, summarise(file, window)));
  }
}

if (flags.render) {
  const saved = JSON.parse(readFileSync(lastResults, 'utf8')) as Results;
  writeResults({ ...saved, started: new Date(saved.started), ...(saved.finished ? { finished: new Date(saved.finished) } : {}) }, join(repo, 'bench', 'RESULTS.md'));
} else {
  takeLock();
  await main();
}
