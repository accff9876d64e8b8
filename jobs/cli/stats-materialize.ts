/**
 * Backfill: (re)materialize the daily stats of a range of UTC days from the raw events, in the
 * database named by DATABASE_URL. Idempotent; safe beside a running server (each batch is one
 * transaction, and on PostgreSQL it waits its turn on the job's advisory lock).
 *
 *   npm run stats:materialize -- --from YYYY-MM-DD --to YYYY-MM-DD [--batch-days N]
 *   npm run stats:materialize -- --missing     # every complete day not materialized yet
 *
 * A running server keeps cached responses for at most 60 s, so backfilled days show up there
 * within a minute; clients honouring the long Cache-Control of settled ranges may keep an older
 * copy for up to a day. Rewriting a settled day with other figures is a restatement: stdout
 * names each such day with its old and new figures (restatement.ts), and clients that
 * revalidate (the data client does, docs/restatements.md) get the new ones. Exits 0 when every
 * day was written; when it stopped early (the days written before stay) 69, 75 or 70 as
 * run-cli.ts classifies the cause.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { DbHandle } from '../../src/db/create-db.ts';
import { checkDay, dayOfInstant, formatDay } from '../../src/lib/calendar.ts';
import { type LockedRun, type MaterializeResult, materialize, materializeMissing, withStatsLock } from '../../src/features/stats/materialize.server.ts';
import { describeRestatement } from '../../src/features/stats/restatement.ts';
import { earliestEventAt } from '../../src/features/stats/stats.server.ts';
import { progress } from './progress-bar.ts';
import { CommandFailed, runCli, UsageError } from './run-cli.ts';

const USAGE = {
  synopsis: 'stats-materialize --from YYYY-MM-DD --to YYYY-MM-DD [--batch-days N] | --missing',
  options: { from: { type: 'string' }, to: { type: 'string' }, 'batch-days': { type: 'string' }, missing: { type: 'boolean' } },
  details: '  only settled days: --to before today (UTC), --from on or after the day of the first event\n  --missing  every such day without a row yet',
} as const;

type Plan = { kind: 'range'; from: string; to: string; batchDays?: number } | { kind: 'missing' };

/**
 * The flags as a plan; throws UsageError. Only settled days: a day's row is served as that day's
 * final numbers, so today (UTC) and later, whose events are still arriving, would be served as
 * zeros or part-days. The nightly job and `--missing` stop at yesterday for the same reason.
 */
function planOf(values: { from?: string; to?: string; 'batch-days'?: string; missing?: boolean }, nowMs: number): Plan {
  if (values.missing) {
    if (values.from || values.to) throw new UsageError('--missing takes no --from/--to');
    return { kind: 'missing' };
  }
  const { from, to } = values;
  if (from === undefined || to === undefined) throw new UsageError('--from and --to are both required');
  if (!checkDay(from).ok) throw new UsageError(`--from ${JSON.stringify(from)} is not a YYYY-MM-DD calendar date`);
  if (!checkDay(to).ok) throw new UsageError(`--to ${JSON.stringify(to)} is not a YYYY-MM-DD calendar date`);
  if (to < from) throw new UsageError(`--to ${to} is before --from ${from}`);
  const today = formatDay(dayOfInstant(nowMs));
  if (to >= today) throw new UsageError(`--to ${to} is not a complete day: only days before today (${today}, UTC) can be materialized, since their events may still arrive`);
  const batch = values['batch-days'];
  if (batch !== undefined && !/^[1-9]\d{0,3}$/.test(batch)) throw new UsageError('--batch-days must be a whole number from 1 to 9999');
  return { kind: 'range', from, to, ...(batch === undefined ? {} : { batchDays: Number(batch) }) };
}

/** Days before the first event would be written as zeros the data API serves as real: refuse them. */
async function refuseBeforeFirstEvent(db: DbHandle, from: string): Promise<void> {
  const earliest = await earliestEventAt(db.kysely);
  if (earliest === undefined) throw new UsageError(`${db.target} holds no events yet: import some first (npm run events:import -- FILE)`);
  const first = formatDay(dayOfInstant(earliest));
  if (from < first) throw new UsageError(`--from ${from} is before the first event, on ${first}: start at ${first} or later`);
}

if (import.meta.main) {
  process.exitCode = await runCli('stats-materialize', USAGE, async ({ values, db, stdout, stderr }) => {
    const plan = planOf(values, Date.now());
    const handle = await db({ statementTimeoutMs: 60_000 });
    if (plan.kind === 'range') await refuseBeforeFirstEvent(handle, plan.from);
    const bar = progress(0, 'materializing', { unit: 'days', stream: stderr });
    const started = performance.now();
    const onProgress = (done: number, total: number) => bar.update(done, { total });
    // Wait for a scheduled run holding the lock (PostgreSQL) rather than skipping: the operator asked for this.
    let outcome: LockedRun<MaterializeResult>;
    for (;;) {
      outcome = await withStatsLock(handle, () =>
        plan.kind === 'missing'
          ? materializeMissing({ db: handle }, { onProgress })
          : materialize({ db: handle }, plan.from, plan.to, { onProgress, ...(plan.batchDays === undefined ? {} : { batchDays: plan.batchDays }) }),
      );
      if (outcome.acquired) break;
      stderr.write('stats-materialize: a scheduled run holds the lock; retrying in 2 s\n');
      await sleep(2_000);
    }
    bar.stop();
    const { days, restated = [], error } = outcome.value;
    const seconds = ((performance.now() - started) / 1000).toFixed(2);
    const reportRestated = () => {
      for (const restatement of restated) stdout.write(`stats-materialize: restated ${describeRestatement(restatement)}\n`);
      if (restated.length === 0) return;
      stdout.write(`stats-materialize: ${restated.length} settled day${restated.length === 1 ? '' : 's'} restated (already served as final); clients that revalidate see the new figures within a minute (docs/restatements.md).\n`);
    };
    if (error) {
      // Committed before the failure: said all the same, so the operator can tell integrators.
      reportRestated();
      throw new CommandFailed(`failed after ${days} days (${seconds} s)`, { cause: error });
    }
    stdout.write(`stats-materialize: ${days} days materialized in ${seconds} s${plan.kind === 'range' ? ` (${plan.from} to ${plan.to})` : ' (missing days)'} into ${handle.target}.\n`);
    reportRestated();
    return 0;
  });
}
