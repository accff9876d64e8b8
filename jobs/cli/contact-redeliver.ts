/**
 * `npm run -s contact:redeliver -- --id N [--not-spam]` or `-- --since ISO-8601`: send contact
 * submissions again, at once, through the running outbox. Nothing is sent from this process: the
 * deliveries are made due now in the database, and the outbox of any running instance sends them
 * on its next poll (CONTACT_OUTBOX_INTERVAL_MS, 5 s by default), re-signed with a fresh
 * webhook-timestamp and the same webhook-id, in a new round of the retry schedule.
 *
 * `--id` sends every delivery of that submission again, whatever its state, and plans one on each
 * configured channel it lacks; `--not-spam` first clears its spam mark. `--since` sends again the
 * deliveries that are not delivered (failed, or waiting for a retry) of every submission made at
 * or after that instant (after a receiver's outage). Spam is never sent. Exit codes: run-cli.ts;
 * 66 for an `--id` that names no submission, 65 for one that is spam (without --not-spam).
 */
import { EX_DATAERR, EX_NOINPUT } from '../../src/app/exit-codes.ts';
import { markNotSpam, redeliverSince, redeliverSubmission } from '../../src/features/contact/deliveries.server.ts';
import { positiveId } from './contact-deliveries.ts';
import { runCli, UsageError } from './run-cli.ts';

const USAGE = {
  synopsis: 'npm run -s contact:redeliver -- --id N [--not-spam] | --since ISO-8601',
  options: { id: { type: 'string' }, since: { type: 'string' }, 'not-spam': { type: 'boolean' } },
  details: [
    '  --id        send every delivery of this submission again (its id in contact:export, contact:deliveries)',
    '  --not-spam  with --id: clear its spam mark first, so it is delivered like any other',
    '  --since     send again what was not delivered of the submissions made at or after this instant,',
    '              e.g. 2026-11-27T08:00:00Z (a date alone means its UTC midnight)',
  ].join('\n'),
} as const;

/** An ISO 8601 instant (or date) to epoch ms; undefined when it is not one. */
export function instantMs(text: string): number | undefined {
  if (!/^\d{4}-\d\d-\d\d(?:[T ]\d\d:\d\d(?::\d\d(?:\.\d{1,3})?)?(?:Z|[+-]\d\d:?\d\d))?$/.test(text)) return undefined;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isNaN(ms) ? undefined : ms;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const SOON = 'any running outbox sends them within CONTACT_OUTBOX_INTERVAL_MS (5 s by default)';

if (import.meta.main) {
  process.exitCode = await runCli('contact-redeliver', USAGE, async ({ values, db, stdout, stderr }) => {
    if ((values.id === undefined) === (values.since === undefined)) throw new UsageError('give either --id N or --since ISO-8601');
    if (values['not-spam'] === true && values.id === undefined) throw new UsageError('--not-spam goes with --id');
    const handle = await db();
    if (values.since !== undefined) {
      const since = instantMs(values.since);
      if (since === undefined) throw new UsageError(`--since must be an ISO 8601 instant with its offset, e.g. 2026-11-27T08:00:00Z, or a date (got ${JSON.stringify(values.since)})`);
      const result = await redeliverSince(handle, since);
      stdout.write(`made ${plural(result.deliveries, 'delivery', 'deliveries')} of submissions since ${new Date(since).toISOString()} due now; ${SOON}${result.spam > 0 ? `; ${plural(result.spam, 'spam submission', 'spam submissions')} left alone` : ''}\n`);
      return 0;
    }
    const id = positiveId(values.id!);
    if (values['not-spam'] === true && !(await markNotSpam(handle, id))) {
      stderr.write(`contact-redeliver: no submission ${id} in ${handle.target}\n`);
      return EX_NOINPUT;
    }
    const result = await redeliverSubmission(handle, id);
    if (!result.found) {
      stderr.write(`contact-redeliver: no submission ${id} in ${handle.target}\n`);
      return EX_NOINPUT;
    }
    if (result.spam > 0) {
      stderr.write(`contact-redeliver: submission ${id} is spam and is never delivered; add --not-spam to clear the mark and deliver it\n`);
      return EX_DATAERR;
    }
    stdout.write(`made ${plural(result.deliveries, 'delivery', 'deliveries')} of submission ${id} due now, and any configured channel it lacks planned; ${SOON}\n`);
    return 0;
  });
}
