/**
 * The schedule around the stats job and the contact retention purge. `startJobs` is called by the
 * server after migrations and returns a handle whose `stop()` the shutdown path awaits; importing
 * this module starts nothing.
 *
 * - Each `STATS_CRON` tick (UTC; default 00:05) materializes the last complete day and
 *   re-materializes the two before it, so events arriving up to ~3 days late are counted
 *   (REMATERIALIZE_DAYS; the data endpoint caches days older than that for long).
 * - On start, every complete day missing since the earliest event is caught up.
 * - Runs never overlap in a process (one promise in flight; node-cron's noOverlap as well).
 * - On PostgreSQL, several instances may share the database: a run first takes a session
 *   advisory lock with pg_try_advisory_lock on a dedicated connection and skips when another
 *   instance holds it; under the lock, a tick whose days were already written at or after the
 *   tick's scheduled minute is skipped too, so a slower instance does not repeat the tick.
 * - With CONTACT_RETENTION_DAYS set, contact submissions older than that many days are deleted
 *   once at start and then daily at RETENTION_CRON, each run logged with its counts. Several
 *   instances may purge at once: a DELETE is idempotent, they only split the counts.
 */
import { createTask, validate } from 'node-cron';
import { dayOfInstant, formatDay } from '../../lib/calendar.ts';
import {
  type JobLog,
  type LockedRun,
  type MaterializeDeps,
  type MaterializeResult,
  daysWrittenSince,
  materialize,
  materializeMissing,
  withStatsLock,
} from '../../features/stats/materialize.server.ts';
import { REMATERIALIZE_DAYS } from '../../features/stats/response-caching.ts';
import { PATHS } from '../../lib/paths.ts';
import type { Services } from '../services.ts';
import { purgeSubmissionsBefore, retentionCutoffMs, type ErasureResult } from '../../features/contact/retention.server.ts';

export type TickOutcome =
  | { ran: true; from: string; to: string; result: MaterializeResult }
  | { ran: false; reason: 'locked' | 'already-done'; from: string; to: string };

/** The days a tick at `tickMs` (re)materializes: the last complete day and the two before it. */
export function tickDays(tickMs: number): { from: string; to: string } {
  const yesterday = dayOfInstant(tickMs) - 1;
  return { from: formatDay(yesterday - REMATERIALIZE_DAYS + 1), to: formatDay(yesterday) };
}

/**
 * One scheduled tick. `tickMs` is the scheduled instant (minute resolution): when every day of
 * the tick already carries a materialized_at at or after it, another instance ran this tick.
 */
export async function runStatsTick(deps: MaterializeDeps, tickMs: number): Promise<TickOutcome> {
  const { from, to } = tickDays(tickMs);
  const outcome = await withStatsLock(deps.db, async () => ((await daysWrittenSince(deps.db.kysely, from, to, tickMs)) ? undefined : materialize(deps, from, to)));
  if (!outcome.acquired) return { ran: false, reason: 'locked', from, to };
  if (outcome.value === undefined) return { ran: false, reason: 'already-done', from, to };
  return { ran: true, from, to, result: outcome.value };
}

/** Start-up catch-up of missing days, under the same lock. */
export async function runCatchUp(deps: MaterializeDeps): Promise<LockedRun<MaterializeResult>> {
  return withStatsLock(deps.db, () => materializeMissing(deps));
}

/** When the contact retention purge runs (UTC): daily, clear of the stats tick at 00:05. */
export const RETENTION_CRON = '35 0 * * *';

export interface RetentionOutcome extends ErasureResult {
  /** Submissions made before this instant (RFC 3339) were deleted. */
  before: string;
}

/**
 * One retention run at `nowMs`: deletes the submissions older than CONTACT_RETENTION_DAYS and logs
 * what went (info) or why it stopped (error). Never throws. Undefined when retention is off.
 */
export async function runRetentionPurge(services: Pick<Services, 'config' | 'db'>, log: JobLog, nowMs: number): Promise<RetentionOutcome | undefined> {
  const days = services.config.CONTACT_RETENTION_DAYS;
  if (days === undefined) return undefined;
  const cutoff = retentionCutoffMs(nowMs, days);
  const outcome: RetentionOutcome = { ...(await purgeSubmissionsBefore(services.db, cutoff)), before: new Date(cutoff).toISOString() };
  const counts = { retentionDays: days, before: outcome.before, submissionsDeleted: outcome.submissions, pendingDeliveriesDeleted: outcome.pendingDeliveries };
  if (outcome.error) log.error({ err: outcome.error, ...counts }, 'contact retention purge stopped');
  else log.info(counts, 'contact retention purge');
  return outcome;
}

export interface JobsHandle {
  /** Settles when the start-up catch-up has finished (or was skipped). */
  ready: Promise<void>;
  /** Stop scheduling and wait for a run in progress to finish. */
  stop(): Promise<void>;
}

export interface JobsDeps {
  services: Services;
  /** Clock (tests). */
  now?: () => number;
}

/**
 * Schedule the stats job and the retention purge. Throws at start-up when STATS_CRON is not a valid expression, so a
 * bad value stops the process with a message naming the variable.
 */
export function startJobs({ services, now = Date.now }: JobsDeps): JobsHandle {
  const { config } = services;
  const log: JobLog = services.log.child({ job: 'stats' });
  if (!config.JOBS_ENABLED) {
    log.info('scheduled jobs disabled (JOBS_ENABLED=false)');
    return { ready: Promise.resolve(), stop: async () => {} };
  }
  if (!validate(config.STATS_CRON)) {
    throw new Error(`STATS_CRON: ${JSON.stringify(config.STATS_CRON)} is not a valid cron expression (node-cron syntax, evaluated in UTC), e.g. "5 0 * * *"`);
  }
  const deps: MaterializeDeps = { db: services.db, log, now, onCommit: () => {
    // Everything that shows daily stats: the data API and the stats page.
    services.purgeCache(PATHS.data);
    services.purgeCache(PATHS.stats);
  } };

  let running: Promise<void> | undefined;
  let stopped = false;
  /** One run at a time in this process; a tick that finds one running is skipped (the next tick covers its days). */
  const exclusive = (name: string, job: () => Promise<void>): Promise<void> => {
    if (stopped) return Promise.resolve();
    if (running) {
      log.warn({ run: name }, 'previous stats run still in progress; skipping');
      return running;
    }
    running = job()
      .catch((error: unknown) => log.error({ err: error, run: name }, 'stats run failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const tick = () =>
    exclusive('tick', async () => {
      const tickMs = Math.floor(now() / 60_000) * 60_000;
      const outcome = await runStatsTick(deps, tickMs);
      if (!outcome.ran) log.info({ from: outcome.from, to: outcome.to, reason: outcome.reason }, 'stats tick skipped');
      else if (outcome.result.error) log.error({ err: outcome.result.error, from: outcome.from, to: outcome.to, days: outcome.result.days }, 'stats tick failed');
      else log.info({ from: outcome.from, to: outcome.to, days: outcome.result.days }, 'stats tick materialized');
    });

  const task = cronTask(config.STATS_CRON, 'stats-materialize', tick, log);
  const retention = startRetention(services, now);

  const ready = exclusive('catch-up', async () => {
    const outcome = await runCatchUp(deps);
    if (!outcome.acquired) log.info('stats catch-up skipped: another instance holds the lock');
    else if (outcome.value.error) log.error({ err: outcome.value.error, days: outcome.value.days }, 'stats catch-up failed');
    else if (outcome.value.days > 0) log.info({ days: outcome.value.days }, 'stats catch-up materialized missing days');
  });

  return {
    ready: Promise.all([ready, retention.ready]).then(() => {}),
    async stop() {
      stopped = true;
      await Promise.all([task.destroy(), retention.stop()]);
      await running;
    },
  };
}

/** A started node-cron task in UTC whose own messages go to our log. */
export function cronTask(expression: string, name: string, run: () => unknown, log: JobLog): ReturnType<typeof createTask> {
  const task = createTask(expression, run, {
    name,
    timezone: 'UTC',
    noOverlap: true,
    logger: {
      info: (message) => log.debug(message),
      warn: (message) => log.warn(message),
      error: (message, error) => log.error({ err: error ?? message }, typeof message === 'string' ? message : message.message),
      debug: (message) => log.debug(typeof message === 'string' ? message : message.message),
    },
  });
  task.start();
  return task;
}

/** The retention purge: once now, then daily at RETENTION_CRON; nothing without CONTACT_RETENTION_DAYS. */
function startRetention(services: Services, now: () => number): Pick<JobsHandle, 'ready' | 'stop'> {
  if (services.config.CONTACT_RETENTION_DAYS === undefined) return { ready: Promise.resolve(), stop: async () => {} };
  const log: JobLog = services.log.child({ job: 'contact-retention' });
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const run = (): Promise<unknown> => {
    if (stopped) return Promise.resolve();
    running ??= runRetentionPurge(services, log, now()).finally(() => {
      running = undefined;
    });
    return running;
  };
  const task = cronTask(RETENTION_CRON, 'contact-retention', run, log);
  return {
    ready: run().then(() => {}),
    async stop() {
      stopped = true;
      await task.destroy();
      await running;
    },
  };
}
