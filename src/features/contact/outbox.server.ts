/**
 * The contact outbox: delivers stored submissions through each configured channel (the webhook,
 * webhook-channel.server.ts; the team's e-mail, email-channel.server.ts), keeping a log of every
 * attempt, on a bounded schedule (retry-schedule.ts).
 *
 * The submission is committed first and answered; delivery happens here, later, so a slow or
 * failing receiver never loses or delays a submission. A run does two things:
 *
 * 1. Planning: a submission stored with `delivery_status = 'pending'` gets one contact_delivery
 *    row per configured channel (`pending`, due at once) and becomes `dispatched`. Inserting with
 *    ON CONFLICT DO NOTHING on (submission, channel) makes this safe to repeat and to race.
 * 2. Sending, each channel on its own (a slow mail server never holds up the webhook): due rows
 *    are claimed one at a time with a compare-and-set lease, sent, the attempt is logged, and the
 *    delivery becomes `delivered`, is rescheduled, or after the schedule's last attempt `failed`.
 *
 * Spam (contact_submission.spam_reason) is never planned nor sent. Several instances may run this
 * against one database. Delivery is at least once: if the process dies after the receiver took a
 * submission but before the row is marked, the lease runs out and it is sent again (webhook
 * receivers de-duplicate on webhook-id; the team may get a second e-mail, whose
 * X-Contact-Submission-ID header says it is the same submission).
 *
 * The polling timer around `deliverPending` is src/app/jobs/outbox.ts; the log's reads and the
 * operators' actions (redeliver, spam) are deliveries.server.ts.
 */
import type { OperandValueExpressionOrList, SelectQueryBuilder, StringReference } from 'kysely';
import type { Logger } from 'pino';
import type { DbHandle } from '../../db/create-db.ts';
import type { DeliveryChannelName } from '../../db/schema.ts';
import type { Meter } from '../../lib/meter.ts';
import type { AttemptOutcome, DeliveryChannel, OutgoingSubmission } from './delivery-channel.ts';
import { DEFAULT_SCHEDULE, nextDelayMs, type RetrySchedule } from './retry-schedule.ts';
import { webhookChannel, type WebhookChannelOptions } from './webhook-channel.server.ts';

export interface OutboxDeps {
  db: DbHandle;
  log?: Logger | undefined;
  /** Counts `contact_delivery_attempts_total` {channel, outcome: delivered|failed} and `contact_deliveries_failed_total` {channel}. */
  meter?: Meter | undefined;
  /** The channels every submission goes through. */
  channels?: readonly DeliveryChannel[];
  /** Shorthand for `channels: [webhookChannel({ url: webhookUrl, ... })]` (the webhook alone). */
  webhookUrl?: string | undefined;
  signingSecret?: WebhookChannelOptions['signingSecret'];
  allowPrivate?: WebhookChannelOptions['allowPrivate'];
  allowPorts?: WebhookChannelOptions['allowPorts'];
  lookup?: WebhookChannelOptions['lookup'];
  fetch?: WebhookChannelOptions['fetch'];
  /** Epoch ms; Date.now by default. */
  now?: () => number;
  /** In [0, 1); Math.random by default. Spreads retries. */
  random?: () => number;
}

export interface DeliverOptions {
  /** Most rows one run takes per channel. */
  batchSize?: number;
  /** How long one attempt may take. */
  requestTimeoutMs?: number;
  /**
   * How long a claimed row is reserved for this run. Longer than the request timeout, so a row
   * is only picked up again when the run that claimed it has certainly finished with it.
   */
  leaseMs?: number;
  /** Attempts and delays (CONTACT_DELIVERY_ATTEMPTS, CONTACT_DELIVERY_SCHEDULE). */
  schedule?: RetrySchedule;
}

export interface DeliverResult {
  delivered: number;
  /** Failed attempts that will be retried. */
  failed: number;
  /** Deliveries whose last attempt failed in this run: now `failed`. */
  gaveUp: number;
  /** Set when a part of the run stopped early, e.g. the database was unreachable. */
  error?: unknown;
}

const DEFAULTS = { batchSize: 20, requestTimeoutMs: 10_000 } as const;

/** The channels of `deps`: its list, or the webhook alone from the shorthand. */
export function channelsOf(deps: OutboxDeps): readonly DeliveryChannel[] {
  if (deps.channels) return deps.channels;
  return deps.webhookUrl === undefined ? [] : [webhookChannel({ ...deps, url: deps.webhookUrl })];
}

/** One run: plan new submissions' deliveries, then send what is due. Never throws. */
export async function deliverPending(deps: OutboxDeps, options: DeliverOptions = {}): Promise<DeliverResult> {
  const channels = channelsOf(deps);
  const result: DeliverResult = { delivered: 0, failed: 0, gaveUp: 0 };
  if (channels.length === 0) return result;
  try {
    await planDeliveries(deps, channels.map((channel) => channel.name), options.batchSize ?? DEFAULTS.batchSize);
  } catch (error) {
    // Deliveries already planned can still go out.
    result.error = error;
    deps.log?.error({ err: error }, 'contact outbox planning stopped');
  }
  const runs = await Promise.all(channels.map((channel) => runChannel(deps, channel, options)));
  for (const run of runs) {
    result.delivered += run.delivered;
    result.failed += run.failed;
    result.gaveUp += run.gaveUp;
    if (run.error !== undefined) result.error ??= run.error;
  }
  return result;
}

/**
 * How the outbox takes either of its queues (submissions to plan, deliveries to send): rows due by
 * `at` whose submission is not spam, oldest due first and lowest id among equals (a total order:
 * a batch cut by `limit` is the same batch for every instance), `limit` at a time. One definition,
 * so that neither queue can drift from the other's spam rule or order. `dueAt` and `id` name the
 * queue's columns, `spam` the submission's spam_reason; `at` takes its type from `dueAt`, since
 * kysely cannot compare a column of a generic table with a plain number.
 */
function oldestDueFirst<DB, TB extends keyof DB, O, DueAt extends StringReference<DB, TB>>(
  query: SelectQueryBuilder<DB, TB, O>,
  columns: { dueAt: DueAt; id: StringReference<DB, TB>; spam: StringReference<DB, TB> },
  at: OperandValueExpressionOrList<DB, TB, DueAt>,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  return query.where(columns.dueAt, '<=', at).where(columns.spam, 'is', null).orderBy(columns.dueAt).orderBy(columns.id).limit(limit);
}

/** Submissions waiting to be planned, a batch at a time (at most ten batches a run). */
async function planDeliveries(deps: OutboxDeps, names: readonly DeliveryChannelName[], batchSize: number): Promise<void> {
  const { kysely: db } = deps.db;
  const now = deps.now ?? Date.now;
  for (let batch = 0; batch < 10; batch += 1) {
    const due = await oldestDueFirst(
      db.selectFrom('contact_submission').select('id').where('delivery_status', '=', 'pending'),
      { dueAt: 'next_attempt_at', id: 'id', spam: 'spam_reason' },
      now(),
      batchSize,
    ).execute();
    if (due.length === 0) return;
    const ids = due.map((row) => Number(row.id));
    const at = now();
    await db
      .insertInto('contact_delivery')
      .values(ids.flatMap((id) => names.map((channel) => ({ submission_id: id, channel, state: 'pending' as const, attempts: 0, next_attempt_at: at, created_at: at }))))
      .onConflict((oc) => oc.columns(['submission_id', 'channel']).doNothing())
      .execute();
    await db.updateTable('contact_submission').set({ delivery_status: 'dispatched', next_attempt_at: null }).where('id', 'in', ids).where('delivery_status', '=', 'pending').execute();
    if (due.length < batchSize) return;
  }
}

/** Due deliveries of one channel, with what the channel sends. */
function dueDeliveries(deps: OutboxDeps, channel: DeliveryChannelName, limit: number) {
  const now = deps.now ?? Date.now;
  return oldestDueFirst(
    deps.db.kysely
      .selectFrom('contact_delivery as d')
      .innerJoin('contact_submission as s', 's.id', 'd.submission_id')
      .select(['d.id', 'd.attempts', 'd.next_attempt_at', 's.id as submission_id', 's.created_at', 's.name', 's.job_title', 's.work_email', 's.priority', 's.message'])
      .where('d.state', '=', 'pending')
      .where('d.channel', '=', channel),
    { dueAt: 'd.next_attempt_at', id: 'd.id', spam: 's.spam_reason' },
    now(),
    limit,
  ).execute();
}

async function runChannel(deps: OutboxDeps, channel: DeliveryChannel, options: DeliverOptions): Promise<DeliverResult> {
  const now = deps.now ?? Date.now;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  const leaseMs = options.leaseMs ?? requestTimeoutMs + 60_000;
  const result: DeliverResult = { delivered: 0, failed: 0, gaveUp: 0 };
  const { kysely: db } = deps.db;
  try {
    for (const row of await dueDeliveries(deps, channel.name, options.batchSize ?? DEFAULTS.batchSize)) {
      // Compare-and-set claim: only the run that still sees the row as we read it wins; any other
      // instance's claim, a redelivery or a spam mark changed next_attempt_at, and this update
      // matches nothing. Comparing the value read, not the clock, keeps clock skew out of it.
      const lease = now() + leaseMs;
      const claimed = await db
        .updateTable('contact_delivery')
        .set({ next_attempt_at: lease })
        .where('id', '=', row.id)
        .where('state', '=', 'pending')
        .where('next_attempt_at', '=', row.next_attempt_at)
        .executeTakeFirst();
      if (claimed.numUpdatedRows === 0n) continue;

      const submission: OutgoingSubmission = { ...row, id: Number(row.submission_id) };
      const attemptedAt = now();
      const started = performance.now();
      const outcome = await channel.send(submission, { now, timeoutMs: requestTimeoutMs });
      const durationMs = Math.max(0, Math.round(performance.now() - started));
      const verdict = await settle(deps, { id: row.id, channel: channel.name, attempts: row.attempts + 1, lease, attemptedAt, durationMs, submissionId: submission.id }, outcome, options.schedule ?? DEFAULT_SCHEDULE);
      if (verdict === 'delivered') result.delivered += 1;
      else if (verdict === 'failed_attempt') result.failed += 1;
      else result.gaveUp += 1;
    }
  } catch (error) {
    result.error = error;
    deps.log?.error({ err: error, channel: channel.name }, 'contact outbox run stopped');
  }
  return result;
}

interface Claimed {
  id: number;
  channel: DeliveryChannelName;
  /** This attempt's number in its round. */
  attempts: number;
  /** The claim's next_attempt_at: the bookkeeping applies only while it still holds. */
  lease: number;
  attemptedAt: number;
  durationMs: number;
  submissionId: number;
}

type Verdict = 'delivered' | 'failed_attempt' | 'gave_up';

/** Log the attempt, then move the delivery on: delivered, due again later, or failed for good. */
async function settle(deps: OutboxDeps, claimed: Claimed, outcome: AttemptOutcome, schedule: RetrySchedule): Promise<Verdict> {
  const now = (deps.now ?? Date.now)();
  const { kysely: db } = deps.db;
  const error = outcome.ok ? null : outcome.error.slice(0, 1000);
  await db
    .insertInto('contact_delivery_attempt')
    .values({ delivery_id: claimed.id, attempted_at: claimed.attemptedAt, duration_ms: claimed.durationMs, outcome: outcome.ok ? 'delivered' : 'failed', response_code: outcome.responseCode ?? null, error })
    .execute();
  const delay = outcome.ok ? undefined : nextDelayMs(claimed.attempts, schedule, deps.random);
  const verdict: Verdict = outcome.ok ? 'delivered' : delay === undefined ? 'gave_up' : 'failed_attempt';
  const change =
    verdict === 'delivered'
      ? { state: 'delivered' as const, delivered_at: now, next_attempt_at: null, last_error: null }
      : verdict === 'gave_up'
        ? { state: 'failed' as const, failed_at: now, next_attempt_at: null, last_error: error }
        : { next_attempt_at: now + delay!, last_error: error };
  // Only while our claim holds: a redelivery or a spam mark meanwhile keeps its own state.
  await db.updateTable('contact_delivery').set({ ...change, attempts: claimed.attempts }).where('id', '=', claimed.id).where('state', '=', 'pending').where('next_attempt_at', '=', claimed.lease).execute();

  // The metrics catalog's families: every attempt by outcome, and the deliveries given up for good.
  deps.meter?.count('contact_delivery_attempts_total', { channel: claimed.channel, outcome: verdict === 'delivered' ? 'delivered' : 'failed' });
  if (verdict === 'gave_up') deps.meter?.count('contact_deliveries_failed_total', { channel: claimed.channel });
  const context = { submission: claimed.submissionId, channel: claimed.channel, attempts: claimed.attempts, status: outcome.responseCode, error: error ?? undefined };
  if (verdict === 'delivered') deps.log?.info(context, 'contact submission delivered');
  else if (verdict === 'gave_up') deps.log?.error(context, 'contact delivery given up: no attempts left');
  else deps.log?.warn({ ...context, retryInMs: delay }, 'contact delivery failed');
  return verdict;
}
