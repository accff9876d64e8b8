/**
 * Retention and erasure of contact submissions: the daily purge behind CONTACT_RETENTION_DAYS
 * (scheduled in src/app/jobs/schedule.ts) and `npm run contact:erase -- --email` (GDPR art. 17, the
 * right to erasure). Works on both engines.
 *
 * A submission's deliveries and their log (contact_delivery, migration 0006) go with it, so a
 * `pending` one is never sent. Each result counts the submissions still waiting for one, because
 * the team may never have received them. A delivery already in flight when its submission goes
 * (the outbox has claimed it and is waiting for the receiver) still arrives; the outbox's
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
  /** Of those, how many were still waiting for a delivery (webhook or e-mail; now never sent). */
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
      const batch = (eb: ExpressionBuilder<Database, 'contact_delivery' | 'contact_submission'>) =>
        eb.selectFrom('contact_submission').select('id').where(filter).orderBy('id').limit(batchSize);
      // One bounded transaction per batch, the same rows in both statements (the same snapshot
      // on PostgreSQL; SQLite's transaction holds the write lock): first the deliveries, whose
      // states say which were still waiting, then the submissions. DELETE ... RETURNING on both
      // engines (SQLite >= 3.35).
      const { deleted, waiting } = await db.kysely.transaction().execute(async (trx) => {
        const deliveries = await trx.deleteFrom('contact_delivery').where('submission_id', 'in', batch).returning(['submission_id', 'state']).execute();
        const submissions = await trx.deleteFrom('contact_submission').where('id', 'in', batch).returning(['id', 'delivery_status']).execute();
        const ids = new Set(submissions.filter((s) => s.delivery_status === 'pending').map((s) => s.id));
        for (const d of deliveries) if (d.state === 'pending') ids.add(d.submission_id);
        return { deleted: submissions.length, waiting: ids.size };
      });
      result.submissions += deleted;
      result.pendingDeliveries += waiting;
      if (deleted < batchSize) return result;
    }
  } catch (error) {
    result.error = error;
    return result;
  }
}
