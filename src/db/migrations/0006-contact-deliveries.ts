import { sql, type Kysely } from 'kysely';
import type { Engine } from '../create-db.ts';

/**
 * The contact delivery log (src/features/contact/outbox.server.ts, deliveries.server.ts) and the
 * spam flag.
 *
 * - `contact_delivery`: one row per submission and channel (`webhook`, `email`), with its state
 *   (`pending`, `delivered`, `failed`), the attempts of its current round and when the next is due.
 * - `contact_delivery_attempt`: every attempt ever made, kept for the log: when, how long, the
 *   outcome and the HTTP status or SMTP reply code, or the error.
 * - `contact_submission.spam_reason`: why a submission was judged spam; null for the others. Spam
 *   is stored, never delivered, and can be marked not-spam.
 *
 * Both tables go with their submission (ON DELETE CASCADE; SQLite connections enable foreign keys),
 * so retention and erasure need no extra step. Deliveries of submissions stored before this
 * migration are carried over as webhook deliveries with their state, attempts and last error;
 * their submissions' `delivery_status` becomes `dispatched` (the outbox's deliveries exist). The
 * per-submission columns delivery_attempts, delivered_at and last_error are no longer written.
 */
export function contactDeliveries(engine: Engine) {
  const id = engine === 'postgres' ? 'bigserial' : 'integer';
  const ref = engine === 'postgres' ? 'bigint' : 'integer';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('contact_submission').addColumn('spam_reason', 'text').execute();

      await db.schema
        .createTable('contact_delivery')
        .addColumn('id', id, (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('submission_id', ref, (c) => c.notNull().references('contact_submission.id').onDelete('cascade'))
        .addColumn('channel', 'text', (c) => c.notNull().check(sql`channel in ('webhook', 'email')`))
        .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('pending', 'delivered', 'failed')`))
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('delivered_at', 'bigint')
        .addColumn('failed_at', 'bigint')
        .addColumn('last_error', 'text')
        .addUniqueConstraint('contact_delivery_submission_channel', ['submission_id', 'channel'])
        .execute();
      // The outbox's claim (state, channel, due time) and the log's listing by state.
      await db.schema.createIndex('contact_delivery_due').on('contact_delivery').columns(['state', 'channel', 'next_attempt_at']).execute();

      await db.schema
        .createTable('contact_delivery_attempt')
        .addColumn('id', id, (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('delivery_id', ref, (c) => c.notNull().references('contact_delivery.id').onDelete('cascade'))
        .addColumn('attempted_at', 'bigint', (c) => c.notNull())
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('delivered', 'failed')`))
        .addColumn('response_code', 'integer')
        .addColumn('error', 'text')
        .execute();
      await db.schema.createIndex('contact_delivery_attempt_delivery').on('contact_delivery_attempt').columns(['delivery_id', 'id']).execute();

      // What the outbox knew before: one webhook delivery per submission that had one.
      await sql`
        insert into contact_delivery (submission_id, channel, state, attempts, next_attempt_at, created_at, delivered_at, last_error)
        select id, 'webhook',
               case delivery_status when 'delivered' then 'delivered' else 'pending' end,
               delivery_attempts,
               case delivery_status when 'delivered' then null else coalesce(next_attempt_at, created_at) end,
               created_at, delivered_at, last_error
        from contact_submission
        where delivery_status in ('pending', 'delivered')
      `.execute(db);
      await sql`update contact_submission set delivery_status = 'dispatched' where delivery_status in ('pending', 'delivered')`.execute(db);
    },
  };
}
