/**
 * `npm run -s contact:deliveries -- [--id N] [--state pending|failed|delivered]`: the contact
 * delivery log. With `--id`, one submission's deliveries (one per channel) and every attempt:
 * when, outcome, HTTP status or SMTP code, duration, error. Without it, one line per delivery,
 * oldest first, optionally of one state (`failed` is what to look at after an alert). The counts
 * go to stderr. Reads DATABASE_URL like the server. Exit codes: run-cli.ts; 66 for an `--id`
 * that names no submission.
 */
import { EX_NOINPUT } from '../../src/app/exit-codes.ts';
import type { ContactDeliveryRow } from '../../src/db/schema.ts';
import { DELIVERY_STATES, type DeliveryState } from '../../src/features/contact/delivery-channel.ts';
import { deliveryCounts, listDeliveries, submissionDeliveries } from '../../src/features/contact/deliveries.server.ts';
import { runCli, UsageError } from './run-cli.ts';

const USAGE = {
  synopsis: 'npm run -s contact:deliveries -- [--id N] [--state pending|failed|delivered]',
  options: { id: { type: 'string' }, state: { type: 'string' } },
  details: [
    '  --id     one submission: its deliveries and every attempt',
    '  --state  only deliveries in this state: pending (waiting for an attempt), failed (given up), delivered',
  ].join('\n'),
} as const;

const iso = (ms: number | null) => (ms === null ? '-' : new Date(ms).toISOString());

/** One delivery in one line. */
export function deliveryLine(d: ContactDeliveryRow): string {
  const when = d.state === 'pending' ? `next attempt ${iso(d.next_attempt_at)}` : d.state === 'failed' ? `failed ${iso(d.failed_at)}` : `delivered ${iso(d.delivered_at)}`;
  return `${d.channel.padEnd(7)} ${d.state.padEnd(9)} ${String(d.attempts).padStart(2)} attempt${d.attempts === 1 ? ' ' : 's'}  ${when}${d.last_error ? `  last error: ${d.last_error}` : ''}`;
}

/** A positive whole number from a flag, or a usage error naming it. */
export function positiveId(text: string): number {
  if (!/^[1-9]\d{0,15}$/.test(text)) throw new UsageError(`--id must be a submission id, a whole number from 1 (got ${JSON.stringify(text)})`);
  return Number(text);
}

function stateOf(text: string | undefined): DeliveryState | undefined {
  if (text === undefined) return undefined;
  if (!(DELIVERY_STATES as readonly string[]).includes(text)) throw new UsageError(`--state must be one of ${DELIVERY_STATES.join(', ')} (got ${JSON.stringify(text)})`);
  return text as DeliveryState;
}

if (import.meta.main) {
  process.exitCode = await runCli('contact-deliveries', USAGE, async ({ values, db, stdout, stderr }) => {
    const state = stateOf(values.state);
    const id = values.id === undefined ? undefined : positiveId(values.id);
    const handle = await db();
    if (id !== undefined) {
      const submission = await handle.kysely.selectFrom('contact_submission').select(['id', 'created_at', 'name', 'work_email', 'priority', 'spam_reason']).where('id', '=', id).executeTakeFirst();
      if (submission === undefined) {
        stderr.write(`contact-deliveries: no submission ${id} in ${handle.target}\n`);
        return EX_NOINPUT;
      }
      const spam = submission.spam_reason === null ? '' : `; spam (${submission.spam_reason}): never delivered unless marked not spam`;
      stdout.write(`submission ${id}, ${iso(submission.created_at)}, ${submission.priority} priority${spam}\n`);
      const deliveries = (await submissionDeliveries(handle, id)).filter((d) => state === undefined || d.state === state);
      for (const d of deliveries) {
        stdout.write(`  ${deliveryLine(d)}\n`);
        for (const a of d.attemptLog) stdout.write(`    ${iso(a.attempted_at)}  ${a.outcome.padEnd(9)} ${String(a.response_code ?? '-').padStart(3)}  ${String(a.duration_ms).padStart(6)} ms${a.error ? `  ${a.error}` : ''}\n`);
      }
      stderr.write(`${deliveries.length} deliver${deliveries.length === 1 ? 'y' : 'ies'} of submission ${id} in ${handle.target}\n`);
      return 0;
    }
    let shown = 0;
    for (let afterId: number | undefined; ; ) {
      const page = await listDeliveries(handle, { state, afterId, limit: 500 });
      for (const d of page) stdout.write(`submission ${String(d.submission_id).padStart(6)}  ${deliveryLine(d)}\n`);
      shown += page.length;
      if (page.length < 500) break;
      afterId = page.at(-1)!.id;
    }
    const counts = await deliveryCounts(handle);
    stderr.write(`${shown} deliver${shown === 1 ? 'y' : 'ies'} listed; in all ${counts.pending} pending, ${counts.failed} failed, ${counts.delivered} delivered, in ${handle.target}\n`);
    return 0;
  });
}
