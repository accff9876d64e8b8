/**
 * One-time enrolment links (`npm run -s admin:invite -- --name NAME`): the first operator and
 * every further one is enrolled from one. An invite expires and is spent by the enrolment that
 * uses it, atomically (one conditional UPDATE), so two browsers racing with one link enrol once.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { hashToken, newToken, TOKEN_PATTERN } from './tokens.ts';

type Db = Kysely<Database>;

export const DEFAULT_INVITE_HOURS = 24;

export interface Invite {
  name: string;
  expiresAt: number;
}

/** Make an invite; the token is in the answer only (its hash is stored). */
export async function createInvite(db: Db, name: string, now: number, ttlMs: number): Promise<{ token: string; invite: Invite }> {
  const token = newToken();
  const expiresAt = now + ttlMs;
  await db.insertInto('console_invite').values({ token_hash: hashToken(token), name, created_at: now, expires_at: expiresAt, used_at: null }).execute();
  return { token, invite: { name, expiresAt } };
}

export type InviteState = { kind: 'valid'; invite: Invite } | { kind: 'unknown' } | { kind: 'used' } | { kind: 'expired' };

/** What an invite token is worth now, without spending it (the enrolment's first step). */
export async function inviteState(db: Db, token: string, now: number): Promise<InviteState> {
  if (!TOKEN_PATTERN.test(token)) return { kind: 'unknown' };
  const row = await db.selectFrom('console_invite').selectAll().where('token_hash', '=', hashToken(token)).executeTakeFirst();
  if (!row) return { kind: 'unknown' };
  if (row.used_at !== null) return { kind: 'used' };
  if (Number(row.expires_at) <= now) return { kind: 'expired' };
  return { kind: 'valid', invite: { name: row.name, expiresAt: Number(row.expires_at) } };
}

/**
 * Spend an invite: only a valid one is spent, once. Runs inside the enrolment's transaction, so
 * an enrolment that fails after this leaves the invite unspent.
 */
export async function spendInvite(db: Db, token: string, now: number): Promise<InviteState> {
  const state = await inviteState(db, token, now);
  if (state.kind !== 'valid') return state;
  const result = await db
    .updateTable('console_invite')
    .set({ used_at: now })
    .where('token_hash', '=', hashToken(token))
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1 ? state : { kind: 'used' };
}
