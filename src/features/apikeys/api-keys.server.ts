/**
 * Repository of the `api_key` table: the same SQL on SQLite and PostgreSQL.
 */
import type { Kysely } from 'kysely';
import type { ApiKeyRow, Database } from '../../db/schema.ts';
import { hashToken, newToken, shownPrefix, type ApiKey } from './api-key.ts';

type Db = Kysely<Database>;

function toApiKey(row: ApiKeyRow): ApiKey {
  // bigint columns: Number() keeps both engines' answers numbers.
  return {
    id: Number(row.id),
    name: row.name,
    tokenPrefix: row.token_prefix,
    minuteLimit: Number(row.minute_limit),
    dayLimit: Number(row.day_limit),
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}

export interface NewKey {
  name: string;
  minuteLimit: number;
  dayLimit: number;
  /** Epoch ms. */
  now: number;
}

/** Create a key; the token is in the answer and nowhere else (only its hash is stored). */
export async function createKey(db: Db, key: NewKey): Promise<{ key: ApiKey; token: string }> {
  const token = newToken();
  const row = await db
    .insertInto('api_key')
    .values({
      name: key.name,
      token_hash: hashToken(token),
      token_prefix: shownPrefix(token),
      minute_limit: key.minuteLimit,
      day_limit: key.dayLimit,
      created_at: key.now,
      revoked_at: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { key: toApiKey(row), token };
}

/** Every key, revoked ones included, oldest first. */
export async function listKeys(db: Db): Promise<ApiKey[]> {
  const rows = await db.selectFrom('api_key').selectAll().orderBy('id').execute();
  return rows.map(toApiKey);
}

/**
 * Revoke a key. `revoked` when this call revoked it, `already` when it was revoked before (the
 * first revocation time is kept), `unknown` when there is no such key.
 */
export async function revokeKey(db: Db, id: number, now: number): Promise<'revoked' | 'already' | 'unknown'> {
  const result = await db.updateTable('api_key').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  if (Number(result.numUpdatedRows) > 0) return 'revoked';
  const exists = await db.selectFrom('api_key').select('id').where('id', '=', id).executeTakeFirst();
  return exists ? 'already' : 'unknown';
}

/** The live key whose token hashes to `tokenHash`, or undefined (unknown or revoked). */
export async function findLiveKey(db: Db, tokenHash: string): Promise<ApiKey | undefined> {
  const row = await db.selectFrom('api_key').selectAll().where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).executeTakeFirst();
  return row === undefined ? undefined : toApiKey(row);
}
