import { sql, type Kysely } from 'kysely';
import type { Engine } from '../create-db.ts';

/** Contact submissions, raw events, materialized days. Written once for both engines. */
export function initial(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('contact_submission')
        .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (c) =>
          engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement(),
        )
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('job_title', 'text')
        .addColumn('work_email', 'text', (c) => c.notNull())
        .addColumn('priority', 'text', (c) => c.notNull().check(sql`priority in ('high', 'standard', 'message')`))
        .addColumn('message', 'text')
        .addColumn('idempotency_key', 'text', (c) => c.unique())
        .addColumn('delivery_status', 'text', (c) => c.notNull().defaultTo('none'))
        .addColumn('delivery_attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint')
        .addColumn('delivered_at', 'bigint')
        .addColumn('last_error', 'text')
        .execute();
      await db.schema.createIndex('contact_submission_created_at').on('contact_submission').column('created_at').execute();
      await db.schema
        .createIndex('contact_submission_outbox')
        .on('contact_submission')
        .columns(['delivery_status', 'next_attempt_at'])
        .execute();

      await db.schema
        .createTable('event')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('occurred_at', 'bigint', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('transaction', 'impression')`))
        .addColumn('revenue_minor', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
      // Covering index: the daily rollup reads only these columns, in time order.
      await db.schema
        .createIndex('event_occurred_at')
        .on('event')
        .columns(['occurred_at', 'kind', 'revenue_minor'])
        .execute();

      await db.schema
        .createTable('daily_stat')
        .addColumn('day', 'text', (c) => c.primaryKey())
        .addColumn('txn_count', 'bigint', (c) => c.notNull())
        .addColumn('impr_count', 'bigint', (c) => c.notNull())
        .addColumn('revenue_minor', 'bigint', (c) => c.notNull())
        .addColumn('materialized_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
