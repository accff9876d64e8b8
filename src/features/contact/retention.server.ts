/**
 * Retention and erasure of contact submissions: the daily purge behind CONTACT_RETENTION_DAYS
 * (scheduled in src/app/jobs/schedule.ts) and `npm run contact:erase -- --email` (GDPR art. 17, the
 * right to erasure). Works on both engines.
 *
 * A submission's webhook delivery is state on its own row (delivery_status), so deleting the row
 * deletes its delivery too: a `pending` one is never sent. Each result counts those separately,
 * because they are submissions the team never received. A delivery already in flight when its
 * row goes (the outbox has claimed it and is waiting for the webhook) still arrives; the outbox's
 * bookkeeping afterwards matches no row and changes nothing.
 *
 * Rows go in batches, each one statement of its own: on SQLite a long purge never holds the
 * single write lock for longer than one batch, so contact submissions keep being answered.
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { DbHandle } from '../../db/create-db.ts';
import type { Database } from '../../db/schema.ts';
import { MS_PER_DAY } from '../../lib/calendar.ts';

export interface ErasureResult {
  /** Submissions deleted. */
  submissions: number;
  /** Of those, how many were still waiting for webhook delivery (now never sent). */
  pendingDeliveries: number;
  /** Set when the run stopped early (what was deleted before stays deleted and is counted). */
  error?: unknown;
}


/** Submissions made before this instant are past a retention of `days` days at `nowMs`. */
export function retentionCutoffMs(nowMs: number, days: number): number {
  return nowMs - days * MS_PER_DAY;
}

type Filter = (eb: ExpressionBuilder<Database, 'contact_submission'>) => Expression<SqlBool>;

/** Delete every submission made before `cutoffMs` (epoch ms). Never throws. */
export function purgeSubmissionsBefore(db: DbHandle, cutoffMs: number, options: { batchSize?: number } = {}): Promise<ErasureResult> {
  // created_at is indexed (contact_submission_created_at, migration 0001).
  return deleteInBatches(db, (eb) => eb('created_at', '<', cutoffMs), options.batchSize);
}

/**
 * Delete every submission whose work_email is `email`, compared case-insensitively: lower() on
 * both sides. Stored addresses passed the form's email check, which admits ASCII only, so both
 * engines fold them alike. Indexed by contact_submission_email_lower (migration 0005). Never throws.
 */
export function eraseSubmissionsByEmail(db: DbHandle, email: string, options: { batchSize?: number } = {}): Promise<ErasureResult> {
  const wanted = email.trim().toLowerCase();
  return deleteInBatches(db, (eb) => eb(sql<string>`lower(work_email)`, '=', wanted), options.batchSize);
}

async function deleteInBatches(db: DbHandle, filter: Filter, batchSize = 500): Promise<ErasureResult> {
  const result: ErasureResult = { submissions: 0, pendingDeliveries: 0 };
  try {
    for (;;) {
      // DELETE ... WHERE id IN (SELECT ... LIMIT n) RETURNING: one bounded statement per batch on
      // both engines (SQLite >= 3.35 has RETURNING), and the statuses counted are exactly those
      // of the rows this statement removed, whatever the outbox did to them just before.
      const deleted = await db.kysely
        .deleteFrom('contact_submission')
        .where('id', 'in', (eb) => eb.selectFrom('contact_submission').select('id').where(filter).orderBy('id').limit(batchSize))
        .returning('delivery_status')
        .execute();
      result.submissions += deleted.length;
      result.pendingDeliveries += deleted.filter((row) => row.delivery_status === 'pending').length;
      if (deleted.length < batchSize) return result;
    }
  } catch (error) {
    result.error = error;
    return result;
  }
}
