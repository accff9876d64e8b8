/**
 * Materialization: N raw events over 400 days rolled up into daily_stat by `materialize()`
 * (src/features/stats/materialize.server.ts), against the `sqlite3` command-line tool running the same SQL (the
 * statements `materializeStatement` builds, batch by batch, each in its own transaction) on the
 * same file with the same pragmas; then one day of 30,000 events re-materialized.
 *
 * Both sides run on the server core. `materialize()` is timed inside its process (module loading
 * excluded); the CLI by the wall time of its whole process (a few ms of start-up included).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_BATCH_DAYS, materializeStatement } from '../../src/features/stats/materialize.server.ts';
import { createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { formatDay, MS_PER_DAY, parseDay, startOfDayMs } from '../../src/lib/calendar.ts';
import { median } from '../lib/load.ts';
import { hasCommand, pinned, runCommand, SERVER_CORE } from '../lib/proc.ts';
import type { Settings } from '../lib/settings.ts';

export const FIRST_DAY = '2025-01-01';
export const REMATERIALIZE_TARGET_MS = 100;
export const SQLITE_CLI_MISSING = 'the sqlite3 command-line tool is not installed (Debian/Ubuntu: apt-get install -y sqlite3)';

/** The pragmas createDb sets on every connection (src/db/create-db.ts), for the CLI to match. */
const APP_PRAGMAS = ['PRAGMA journal_mode = WAL;', 'PRAGMA synchronous = NORMAL;', 'PRAGMA foreign_keys = ON;', 'PRAGMA cache_size = -2000;'];

export interface Plan {
  file: string;
  events: number;
  from: string;
  to: string;
}

/** A fresh database with the app's schema and `events` evenly spread events, written by SQLite itself. */
export async function prepareEvents(workDir: string, settings: Settings): Promise<Plan> {
  const file = join(workDir, 'events.db');
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  const handle = createDb(file);
  const migration = await migrateToLatest(handle.kysely, handle.engine);
  await handle.close();
  if (migration.error) throw new Error(`migrating ${file}: ${String(migration.error)}`);

  const first = parseDay(FIRST_DAY);
  const n = settings.events;
  const conn = new Database(file);
  // Loading only: no journal, no syncs, a big cache. The measured runs use the app's pragmas.
  conn.pragma('journal_mode = DELETE');
  conn.pragma('synchronous = OFF');
  conn.pragma('cache_size = -262144');
  // Ids zero-padded and times ascending, so both indexes are appended to in order.
  conn.exec(`
    WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${n - 1})
    INSERT INTO event (id, occurred_at, kind, revenue_minor)
    SELECT printf('ev%010d', i),
           ${startOfDayMs(first)} + (i * ${settings.days * MS_PER_DAY}) / ${n},
           CASE WHEN i % 20 = 0 THEN 'transaction' ELSE 'impression' END,
           CASE WHEN i % 20 = 0 THEN 1 + (i * 7919) % 25000 ELSE 0 END
      FROM n`);
  conn.pragma('journal_mode = WAL');
  conn.close();
  return { file, events: n, from: FIRST_DAY, to: formatDay(first + settings.days - 1) };
}

/** The SQL `materialize(from, to)` sends, as a script for the sqlite3 CLI. */
export async function cliScript(plan: Plan, materializedAt: number): Promise<string> {
  const compiler = createDb(':memory:'); // compiles only; never opened
  const lines = [...APP_PRAGMAS];
  try {
    for (let start = parseDay(plan.from); start <= parseDay(plan.to); start += DEFAULT_BATCH_DAYS) {
      const days: number[] = [];
      for (let day = start; day <= Math.min(parseDay(plan.to), start + DEFAULT_BATCH_DAYS - 1); day++) days.push(day);
      const { sql, parameters } = materializeStatement(days, materializedAt).compile(compiler.kysely);
      let i = 0;
      const inlined = sql.replace(/\?/g, () => literal(parameters[i++]));
      if (i !== parameters.length) throw new Error('materializeStatement: placeholders and parameters differ');
      lines.push('BEGIN;', `${inlined};`, 'COMMIT;');
    }
  } finally {
    await compiler.close();
  }
  return lines.join('\n');
}

function literal(value: unknown): string {
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  throw new Error(`cannot inline ${typeof value}`);
}

/** `materialize()` in a child process on the server core; returns each call's ms. */
async function runMaterialize(plan: Plan, from: string, to: string, repeat: number, nodeFlags: readonly string[] = []): Promise<number[]> {
  const [command, args] = pinned(SERVER_CORE, process.execPath, [...nodeFlags, 'bench/scenarios/materialize-run.ts', plan.file, from, to, String(repeat)]);
  const run = await runCommand(command, args);
  if (run.code !== 0) throw new Error(`materialize-run failed (${run.code}): ${run.stderr || run.stdout}`);
  return (JSON.parse(run.stdout) as { ms: number[] }).ms;
}

async function runCli(plan: Plan, script: string): Promise<number> {
  const [command, args] = pinned(SERVER_CORE, 'sqlite3', [plan.file]);
  const run = await runCommand(command, args, { input: script });
  if (run.code !== 0 || run.stderr.trim() !== '') throw new Error(`sqlite3 failed (${run.code}): ${run.stderr}`);
  return run.ms;
}

/** The rollup must be the same whoever wrote it: 1 in 20 events is a transaction. */
function checkRollup(plan: Plan, days: number): void {
  const conn = new Database(plan.file, { readonly: true });
  const row = conn.prepare('SELECT count(*) AS days, sum(txn_count) AS txn, sum(impr_count) AS impr FROM daily_stat').get() as { days: number; txn: number; impr: number };
  conn.close();
  const txn = Math.ceil(plan.events / 20);
  if (row.days !== days || row.txn !== txn || row.impr !== plan.events - txn) {
    throw new Error(`daily_stat does not add up: ${JSON.stringify(row)}, expected ${days} days, ${txn} transactions, ${plan.events - txn} impressions`);
  }
}

export interface MaterializeOutcome {
  events: number;
  nodeMs?: number;
  cliMs?: number;
  ratio?: number;
  cliVersion?: string;
  skipped?: string;
  met: boolean;
}

export async function compareWithCli(plan: Plan, settings: Settings): Promise<MaterializeOutcome> {
  if (!hasCommand('sqlite3')) return { events: plan.events, skipped: SQLITE_CLI_MISSING, met: false };
  const script = await cliScript(plan, Date.now());
  writeFileSync(`${plan.file}.materialize.sql`, script); // for reading, and for running by hand
  const node: number[] = [];
  const cli: number[] = [];
  for (let round = 0; round < settings.rounds; round++) {
    const order = round % 2 === 0 ? (['cli', 'node'] as const) : (['node', 'cli'] as const);
    for (const side of order) {
      if (side === 'cli') cli.push(await runCli(plan, script));
      else node.push(...(await runMaterialize(plan, plan.from, plan.to, 1)));
      checkRollup(plan, settings.days);
    }
  }
  const cliVersion = (await runCommand('sqlite3', ['--version'])).stdout.split(' ')[0];
  const nodeMs = median(node);
  const cliMs = median(cli);
  const ratio = nodeMs / cliMs;
  return { events: plan.events, nodeMs, cliMs, ratio, ...(cliVersion ? { cliVersion } : {}), met: ratio <= 1.0 };
}

export interface DayOutcome {
  events: number;
  /** Each call's ms: the first on a fresh connection, then repeats. */
  ms: number[];
  met: boolean;
}

/** Top the last day up to `settings.dayEvents` events, then re-materialize it a few times. */
export async function rematerializeDay(plan: Plan, settings: Settings): Promise<DayOutcome> {
  const day = parseDay(plan.to);
  const existing = Math.floor(plan.events / settings.days);
  const extra = settings.dayEvents - existing;
  const conn = new Database(plan.file);
  if (extra > 0) {
    conn.exec(`
      WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${extra - 1})
      INSERT INTO event (id, occurred_at, kind, revenue_minor)
      SELECT printf('day%010d', i), ${startOfDayMs(day)} + (i * ${MS_PER_DAY}) / ${extra}, 'impression', 0 FROM n`);
  }
  const count = (conn.prepare('SELECT count(*) AS n FROM event WHERE occurred_at >= ? AND occurred_at < ?').get(startOfDayMs(day), startOfDayMs(day) + MS_PER_DAY) as { n: number }).n;
  conn.close();
  const ms = await runMaterialize(plan, plan.to, plan.to, 5);
  return { events: count, ms, met: Math.max(...ms) <= REMATERIALIZE_TARGET_MS };
}

/** A CPU profile of `materialize()` over the whole plan, for a target not met. */
export async function profileMaterialize(plan: Plan, profileDir: string): Promise<void> {
  await runMaterialize(plan, plan.from, plan.to, 1, ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]);
}
