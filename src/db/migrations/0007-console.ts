import type { Kysely } from 'kysely';
import type { Engine } from '../create-db.ts';

/**
 * The operators' console (src/features/console): operators and their passkeys (WebAuthn
 * credentials), the one-time invites that enrol them, the WebAuthn challenges between a
 * ceremony's two requests, sessions, and the audit log. In the database rather than in memory so
 * that every instance of a fleet shares them. Secrets (invite and session tokens) are stored as
 * SHA-256 hashes only; instants are epoch ms, like every table here.
 */
export function consoleTables(engine: Engine) {
  const id = engine === 'postgres' ? 'bigserial' : 'integer';
  const key = engine === 'postgres' ? (c: any) => c.primaryKey() : (c: any) => c.primaryKey().autoIncrement();
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('console_operator')
        .addColumn('id', id, key)
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('console_credential')
        // The credential id the authenticator chose, base64url (WebAuthn section 6.1: at most 1023 bytes).
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('operator_id', 'bigint', (c) => c.notNull().references('console_operator.id').onDelete('cascade'))
        // COSE public key, base64url: text on both engines, so no bytea/blob difference leaks.
        .addColumn('public_key', 'text', (c) => c.notNull())
        .addColumn('counter', 'bigint', (c) => c.notNull())
        .addColumn('transports', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_used_at', 'bigint')
        .execute();
      await db.schema.createIndex('console_credential_operator').on('console_credential').column('operator_id').execute();
      await db.schema
        .createTable('console_invite')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema
        .createTable('console_challenge')
        .addColumn('challenge', 'text', (c) => c.primaryKey())
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('console_challenge_expires').on('console_challenge').column('expires_at').execute();
      await db.schema
        .createTable('console_session')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('operator_id', 'bigint', (c) => c.notNull().references('console_operator.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
        .addColumn('revoked_at', 'bigint')
        // A value to show once on the next page (a new API key's token), then cleared.
        .addColumn('flash', 'text')
        .execute();
      await db.schema.createIndex('console_session_operator').on('console_session').column('operator_id').execute();
      await db.schema
        .createTable('console_audit')
        .addColumn('id', id, key)
        .addColumn('at', 'bigint', (c) => c.notNull())
        // The name as it was then: the log outlives a renamed or removed operator.
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('target', 'text')
        .addColumn('detail', 'text')
        .execute();
      await db.schema.createIndex('console_audit_at').on('console_audit').column('at').execute();
    },
  };
}
