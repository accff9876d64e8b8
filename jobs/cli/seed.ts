/**
 * Demo data: migrate the database named by DATABASE_URL (default ./data/site.db) and, when it
 * holds no events yet, generate realistic raw events for the 400 days up to yesterday (UTC) and
 * materialize every complete day. A second run finds the events and does nothing more than
 * catch up missing days. Exit codes: run-cli.ts (69, 75 or 70 when materializing failed).
 *
 *   npm run seed
 */
import { dayOfInstant, formatDay } from '../../src/lib/calendar.ts';
import { materialize, materializeMissing } from '../../src/features/stats/materialize.server.ts';
import { writeSeedEvents } from '../../src/features/stats/seed-events.server.ts';
import { earliestEventAt } from '../../src/features/stats/stats.server.ts';
import { progress } from './progress-bar.ts';
import { CommandFailed, runCli } from './run-cli.ts';

export const SEED_DAYS = 400;

if (import.meta.main) {
  process.exitCode = await runCli('seed', { synopsis: 'npm run seed', options: {} }, async ({ config, db, stdout, stderr }) => {
    const started = performance.now();
    const handle = await db({ statementTimeoutMs: 60_000 });
    if ((await earliestEventAt(handle.kysely)) !== undefined) {
      const catchUp = progress(0, 'seed: materializing missing days', { unit: 'days', stream: stderr });
      const caughtUp = await materializeMissing({ db: handle }, { onProgress: (done, total) => catchUp.update(done, { total }) });
      catchUp.stop();
      if (caughtUp.error) throw new CommandFailed(`materializing missing days failed after ${caughtUp.days} days`, { cause: caughtUp.error });
      stdout.write(`seed: ${handle.target} already has events; nothing seeded${caughtUp.days > 0 ? ` (materialized ${caughtUp.days} missing days)` : ''}.\n`);
      return 0;
    }

    const lastDay = dayOfInstant(Date.now()) - 1;
    const firstDay = lastDay - SEED_DAYS + 1;
    // Three outage days spread over the period, so charts show what a zero day looks like.
    const writing = progress(SEED_DAYS, `seed: writing events (${formatDay(firstDay)} to ${formatDay(lastDay)})`, { unit: 'days', stream: stderr });
    const events = await writeSeedEvents(handle, config().DATABASE_URL, { firstDay, lastDay, zeroDayOffsets: [57, 211, 342], seed: 20_260_101 }, (done) => writing.update(done));
    writing.stop();
    const inserted = performance.now();

    const bar = progress(SEED_DAYS, 'seed: materializing', { unit: 'days', stream: stderr });
    const result = await materialize({ db: handle }, formatDay(firstDay), formatDay(lastDay), { batchDays: 100, onProgress: (done) => bar.update(done) });
    bar.stop();
    if (result.error) throw new CommandFailed(`materializing failed after ${result.days} days`, { cause: result.error });
    const seconds = (ms: number) => (ms / 1000).toFixed(1);
    stdout.write(
      `seed: ${events.toLocaleString('en')} events over ${SEED_DAYS} days (${formatDay(firstDay)} to ${formatDay(lastDay)}) into ${handle.target} ` +
        `in ${seconds(inserted - started)} s; materialized ${result.days} days in ${seconds(performance.now() - inserted)} s.\n`,
    );
    return 0;
  });
}
