import type { Kysely } from 'kysely';
import type { Engine } from '../create-db.ts';

/**
 * Integrator keys of the data API (docs/interface.md section 4). Looked up by `token_hash` (unique, so
 * indexed); a revoked key keeps its row, so `api-keys list` still shows who had it and when.
 */
export function apiKeys(engine: Engine) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('api_key')
        .addColumn('id', engine === 'postgres' ? 'bigserial' : 'integer', (c) => (engine === 'postgres' ? c.primaryKey() : c.primaryKey().autoIncrement()))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('token_prefix', 'text', (c) => c.notNull())
        .addColumn('minute_limit', 'integer', (c) => c.notNull())
        .addColumn('day_limit', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        .execute();
    },
  };
}
