/**
 * Backfill: (re)materialise the daily stats of a range of UTC days from the raw events, in the
 * database named by DATABASE_URL. Idempotent; safe beside a running server (each batch is one
 * transaction, and on PostgreSQL it waits its turn on the job's advisory lock).
 *
 *   npx node jobs/cli/stats-materialize.ts --from YYYY-MM-DD --to YYYY-MM-DD [--batch-days N]
 *   npx node jobs/cli/stats-materialize.ts --missing     # every complete day not materialised yet
 *
 * A running server keeps cached responses for at most 60 s, so backfilled days show up there
 * within a minute; clients honouring the long Cache-Control of settled ranges may keep an older
 * copy for up to a day.
 */
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../../src/app/config.ts';
import { createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { checkDay } from '../../src/lib/calendar.ts';
import { type MaterializeResult, materialize, materializeMissing } from '../materialize.ts';
import { type LockedRun, withStatsLock } from '../schedule.ts';

const USAGE = 'usage: stats-materialize --from YYYY-MM-DD --to YYYY-MM-DD [--batch-days N] | --missing';

type Plan = { kind: 'range'; from: string; to: string; batchDays?: number } | { kind: 'missing' };

function parsePlan(): Plan | string {
  let values;
  try {
    ({ values } = parseArgs({
      options: { from: { type: 'string' }, to: { type: 'string' }, 'batch-days': { type: 'string' }, missing: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    }));
  } catch (error) {
    return (error as Error).message;
  }
  if (values.help) return '';
  if (values.missing) return values.from || values.to ? '--missing takes no --from/--to' : { kind: 'missing' };
  const { from, to } = values;
  if (from === undefined || to === undefined) return '--from and --to are both required';
  if (!checkDay(from).ok) return `--from ${JSON.stringify(from)} is not a YYYY-MM-DD calendar date`;
  if (!checkDay(to).ok) return `--to ${JSON.stringify(to)} is not a YYYY-MM-DD calendar date`;
  if (to < from) return `--to ${to} is before --from ${from}`;
  const batch = values['batch-days'];
  if (batch !== undefined && !/^[1-9]\d{0,3}$/.test(batch)) return '--batch-days must be a whole number from 1 to 9999';
  return { kind: 'range', from, to, ...(batch === undefined ? {} : { batchDays: Number(batch) }) };
}

async function main(): Promise<number> {
  const plan = parsePlan();
  if (typeof plan === 'string') {
    if (plan === '') {
      console.log(USAGE);
      return 0;
    }
    console.error(`stats-materialize: ${plan}\n${USAGE}`);
    return 2;
  }
  const config = loadConfig(process.env);
  const handle = createDb(config.DATABASE_URL, { sqliteSynchronous: config.SQLITE_SYNCHRONOUS, statementTimeoutMs: 60_000 });
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'materialising [{bar}] {percentage}% | {value}/{total} days | eta {eta_formatted}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  try {
    const migration = await migrateToLatest(handle.db, handle.engine);
    if (migration.error) {
      console.error(`stats-materialize: migrating ${handle.target} failed: ${(migration.error as Error).message ?? String(migration.error)}`);
      return 1;
    }
    const started = performance.now();
    let barStarted = false;
    const onProgress = (done: number, total: number) => {
      if (!barStarted) {
        bar.start(total, 0);
        barStarted = true;
      }
      bar.update(done);
    };
    // Wait for a scheduled run holding the lock (PostgreSQL) rather than skipping: the operator asked for this.
    let outcome: LockedRun<MaterializeResult>;
    for (;;) {
      outcome = await withStatsLock(handle, () =>
        plan.kind === 'missing'
          ? materializeMissing({ db: handle }, { onProgress })
          : materialize({ db: handle }, plan.from, plan.to, { onProgress, ...(plan.batchDays === undefined ? {} : { batchDays: plan.batchDays }) }),
      );
      if (outcome.acquired) break;
      console.error('stats-materialize: a scheduled run holds the lock; retrying in 2 s');
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
    bar.stop();
    const { days, error } = outcome.value;
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    if (error) {
      console.error(`stats-materialize: failed after ${days} days (${seconds} s): ${error.message}`);
      return 1;
    }
    console.log(`stats-materialize: ${days} days materialised in ${seconds} s${plan.kind === 'range' ? ` (${plan.from} to ${plan.to})` : ' (missing days)'} into ${handle.target}.`);
    return 0;
  } finally {
    bar.stop();
    await handle.close();
  }
}

process.exitCode = await main();
