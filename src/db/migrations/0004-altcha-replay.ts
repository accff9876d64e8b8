import type { Kysely } from 'kysely';

/**
 * Proof-of-work solutions already spent (src/features/contact/altcha.server.ts): one row per
 * challenge signature until the challenge expires, so a solution buys one submission. The
 * Idempotency-Key that spent it lets a retry of that same submission through.
 */
export function altchaReplay() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('contact_altcha_used')
        .addColumn('signature', 'text', (c) => c.primaryKey())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('idempotency_key', 'text')
        .execute();
      await db.schema.createIndex('contact_altcha_used_expires_at').on('contact_altcha_used').column('expires_at').execute();
    },
  };
}
