import type { Kysely } from 'kysely';

/**
 * One row that readiness rewrites to learn whether writes work again after a write failed for
 * want of storage (disk full, read-only): see DbHandle.ping. A real write is the only honest
 * test of that: a read succeeds on a full disk.
 */
export function healthProbe() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('health_probe')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('checked_at', 'bigint', (c) => c.notNull())
        .execute();
    },
  };
}
