/**
 * How far behind the webhook outbox is, read for the metrics at scrape time: the submissions
 * still waiting for delivery and the age of the oldest. One query the outbox index
 * (delivery_status, next_attempt_at) narrows to the pending rows, which are few unless the
 * receiver has been failing, and then this is what the operator needs to see.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

export interface OutboxBacklog {
  pending: number;
  /** Seconds since the oldest pending submission was stored; 0 when none waits. */
  oldestAgeSeconds: number;
}

export async function outboxBacklog(db: Kysely<Database>, nowMs: number): Promise<OutboxBacklog> {
  const row = await db
    .selectFrom('contact_submission')
    .select((eb) => [eb.fn.countAll<number | string>().as('pending'), eb.fn.min('created_at').as('oldest')])
    .where('delivery_status', '=', 'pending')
    .executeTakeFirst();
  const pending = Number(row?.pending ?? 0);
  const oldest = row?.oldest === null || row?.oldest === undefined ? undefined : Number(row.oldest);
  return { pending, oldestAgeSeconds: pending === 0 || oldest === undefined ? 0 : Math.max(0, (nowMs - oldest) / 1000) };
}
