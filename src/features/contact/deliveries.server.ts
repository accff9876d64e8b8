/**
 * The contact delivery log and the operators' actions on it, for the command line
 * (`contact:deliveries`, `contact:redeliver`) and the console: read a submission's deliveries
 * with every attempt, list deliveries by state, send again, mark spam or not spam. Plain kysely,
 * the same on SQLite and PostgreSQL; nothing here sends anything itself.
 *
 * Redelivery does not send from the caller's process: it makes the deliveries due now, in the
 * database, and the running outbox of any instance (src/app/jobs/outbox.ts) sends them on its next
 * poll, re-signed with a fresh webhook-timestamp and the same webhook-id. Each redelivery starts a
 * new round of the retry schedule; the attempts before it stay in the log.
 */
import type { DbHandle } from '../../db/create-db.ts';
import type { ContactDeliveryAttemptRow, ContactDeliveryRow, ContactSubmissionRow, DeliveryChannelName, DeliveryState } from '../../db/schema.ts';
import type { DeliverySummary } from './delivery-channel.ts';

export type { DeliverySummary } from './delivery-channel.ts';

/** One delivery with its attempts, oldest first. */
export interface DeliveryWithAttempts extends ContactDeliveryRow {
  attemptLog: ContactDeliveryAttemptRow[];
}

/** A delivery in a listing, with what identifies its submission. */
export interface DeliveryListItem extends ContactDeliveryRow {
  submission: Pick<ContactSubmissionRow, 'id' | 'created_at' | 'name' | 'work_email' | 'priority' | 'spam_reason'>;
}

/** A submission's deliveries (one per channel it went to) with their attempts; [] when it has none. */
export async function submissionDeliveries(db: DbHandle, submissionId: number): Promise<DeliveryWithAttempts[]> {
  const deliveries = await db.kysely.selectFrom('contact_delivery').selectAll().where('submission_id', '=', submissionId).orderBy('channel').execute();
  if (deliveries.length === 0) return [];
  const attempts = await db.kysely
    .selectFrom('contact_delivery_attempt')
    .selectAll()
    .where(
      'delivery_id',
      'in',
      deliveries.map((d) => d.id),
    )
    .orderBy('id')
    .execute();
  return deliveries.map((delivery) => ({ ...delivery, attemptLog: attempts.filter((a) => a.delivery_id === delivery.id) }));
}

export interface ListDeliveriesOptions {
  state?: DeliveryState | undefined;
  channel?: DeliveryChannelName | undefined;
  /** Keyset paging: only deliveries with a greater id. */
  afterId?: number | undefined;
  /** At most this many (default 100). */
  limit?: number | undefined;
}

/** Deliveries in id order (oldest first), optionally of one state and channel. */
export async function listDeliveries(db: DbHandle, options: ListDeliveriesOptions = {}): Promise<DeliveryListItem[]> {
  let query = db.kysely
    .selectFrom('contact_delivery as d')
    .innerJoin('contact_submission as s', 's.id', 'd.submission_id')
    .selectAll('d')
    .select(['s.created_at as s_created_at', 's.name as s_name', 's.work_email as s_work_email', 's.priority as s_priority', 's.spam_reason as s_spam_reason'])
    .orderBy('d.id')
    .limit(options.limit ?? 100);
  if (options.state !== undefined) query = query.where('d.state', '=', options.state);
  if (options.channel !== undefined) query = query.where('d.channel', '=', options.channel);
  if (options.afterId !== undefined) query = query.where('d.id', '>', options.afterId);
  const rows = await query.execute();
  return rows.map(({ s_created_at, s_name, s_work_email, s_priority, s_spam_reason, ...delivery }) => ({
    ...delivery,
    submission: { id: delivery.submission_id, created_at: s_created_at, name: s_name, work_email: s_work_email, priority: s_priority, spam_reason: s_spam_reason },
  }));
}

/** How many deliveries are in each state (the console's summary; `failed` is what to alert on). */
export async function deliveryCounts(db: DbHandle): Promise<Record<DeliveryState, number>> {
  const rows = await db.kysely.selectFrom('contact_delivery').select((eb) => ['state', eb.fn.countAll<number>().as('n')]).groupBy('state').execute();
  const counts: Record<DeliveryState, number> = { pending: 0, delivered: 0, failed: 0 };
  for (const row of rows) counts[row.state] = Number(row.n);
  return counts;
}

export interface RedeliverResult {
  /** Deliveries made due now. */
  deliveries: number;
  /** Submissions that will also get a delivery on each configured channel they lack (planned by the outbox). */
  planned: number;
  /** Matching submissions left alone because they are spam (mark them not spam first). */
  spam: number;
}

export interface ActionOptions {
  /** Epoch ms; now by default. */
  now?: number;
}

/**
 * Send one submission again, whatever its deliveries' states: each becomes `pending`, due now, in
 * a new round; and the outbox plans a delivery on every configured channel it had none on (a
 * channel configured since). Spam is left alone. `found: false` when there is no such submission.
 */
export async function redeliverSubmission(db: DbHandle, submissionId: number, options: ActionOptions = {}): Promise<RedeliverResult & { found: boolean }> {
  const now = options.now ?? Date.now();
  const submission = await db.kysely.selectFrom('contact_submission').select(['id', 'spam_reason']).where('id', '=', submissionId).executeTakeFirst();
  if (submission === undefined) return { found: false, deliveries: 0, planned: 0, spam: 0 };
  if (submission.spam_reason !== null) return { found: true, deliveries: 0, planned: 0, spam: 1 };
  const updated = await db.kysely.updateTable('contact_delivery').set(restart(now)).where('submission_id', '=', submissionId).executeTakeFirst();
  await db.kysely.updateTable('contact_submission').set({ delivery_status: 'pending', next_attempt_at: now }).where('id', '=', submissionId).where('spam_reason', 'is', null).execute();
  return { found: true, deliveries: Number(updated.numUpdatedRows), planned: 1, spam: 0 };
}

/**
 * Send again every delivery that is not `delivered` (failed, or pending and waiting for a retry)
 * of the submissions made at or after `sinceMs`: after a receiver's outage is fixed. Spam is left alone.
 */
export async function redeliverSince(db: DbHandle, sinceMs: number, options: ActionOptions = {}): Promise<RedeliverResult> {
  const now = options.now ?? Date.now();
  const result = await db.kysely
    .updateTable('contact_delivery')
    .set(restart(now))
    .where('state', '!=', 'delivered')
    .where('submission_id', 'in', (eb) => eb.selectFrom('contact_submission').select('id').where('created_at', '>=', sinceMs).where('spam_reason', 'is', null))
    .executeTakeFirst();
  const spam = await db.kysely
    .selectFrom('contact_submission')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('created_at', '>=', sinceMs)
    .where('spam_reason', 'is not', null)
    .executeTakeFirstOrThrow();
  return { deliveries: Number(result.numUpdatedRows), planned: 0, spam: Number(spam.n) };
}

/** A delivery made pending, due now, in a new round of the schedule. */
function restart(now: number) {
  return { state: 'pending' as const, attempts: 0, next_attempt_at: now, delivered_at: null, failed_at: null };
}

/**
 * Mark a submission as spam: it is kept, with `reason`, and nothing more of it is sent (pending
 * deliveries are paused; what was delivered stays so). False when there is no such submission.
 */
export async function markSpam(db: DbHandle, submissionId: number, reason = 'marked by an operator'): Promise<boolean> {
  const result = await db.kysely.updateTable('contact_submission').set({ spam_reason: reason.slice(0, 200) }).where('id', '=', submissionId).executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  // Paused: a null due time is never claimed; not-spam makes them due again.
  await db.kysely.updateTable('contact_delivery').set({ next_attempt_at: null }).where('submission_id', '=', submissionId).where('state', '=', 'pending').execute();
  return true;
}

/**
 * Mark a submission as not spam: it is then delivered like any other, through every configured
 * channel (deliveries paused by a spam mark resume). False when there is no such submission.
 */
export async function markNotSpam(db: DbHandle, submissionId: number, options: ActionOptions = {}): Promise<boolean> {
  const now = options.now ?? Date.now();
  const result = await db.kysely.updateTable('contact_submission').set({ spam_reason: null }).where('id', '=', submissionId).executeTakeFirst();
  if (result.numUpdatedRows === 0n) return false;
  await db.kysely.updateTable('contact_delivery').set({ next_attempt_at: now }).where('submission_id', '=', submissionId).where('state', '=', 'pending').where('next_attempt_at', 'is', null).execute();
  // Planned on every configured channel it has no delivery on yet (a spam was never planned).
  await db.kysely.updateTable('contact_submission').set({ delivery_status: 'pending', next_attempt_at: now }).where('id', '=', submissionId).where('delivery_status', '!=', 'pending').execute();
  return true;
}

/** The summaries of these submissions (rows as read from contact_submission). */
export async function deliverySummaries(db: DbHandle, submissions: ReadonlyArray<Pick<ContactSubmissionRow, 'id' | 'delivery_status'>>): Promise<Map<number, DeliverySummary>> {
  const ids = submissions.map((s) => s.id);
  const deliveries = ids.length === 0 ? [] : await db.kysely.selectFrom('contact_delivery').select(['submission_id', 'state', 'delivered_at']).where('submission_id', 'in', ids).execute();
  const summaries = new Map<number, DeliverySummary>();
  for (const submission of submissions) {
    const own = deliveries.filter((d) => d.submission_id === submission.id);
    let status: DeliverySummary['status'] = 'none';
    if (submission.delivery_status === 'pending' || own.some((d) => d.state === 'pending')) status = 'pending';
    else if (own.some((d) => d.state === 'failed')) status = 'failed';
    else if (own.length > 0) status = 'delivered';
    const deliveredAt = status === 'delivered' ? Math.max(...own.map((d) => d.delivered_at ?? 0)) : null;
    summaries.set(submission.id, { status, deliveredAt });
  }
  return summaries;
}
