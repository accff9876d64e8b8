/**
 * Console sessions, in the database so that every instance of a fleet knows them and a CLI can
 * end them (`npm run -s admin:sessions -- --revoke`). The browser holds a random token in an
 * HttpOnly cookie; the table holds its SHA-256, the operator, a CSRF token, and the times that
 * make the two expiries (OWASP Session Management cheat sheet): idle (no request for
 * `idleMs`) and absolute (`maxMs` after sign-in, however busy). Time is always passed in.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { hashToken, newToken, TOKEN_PATTERN } from './tokens.ts';

type Db = Kysely<Database>;

export interface SessionPolicy {
  /** A session unused this long is over. */
  idleMs: number;
  /** A session this old is over, however used. */
  maxMs: number;
}

export interface Session {
  /** The short id `admin:sessions` shows and revokes by: the first 12 hex digits of the token's hash. */
  id: string;
  operatorId: number;
  operatorName: string;
  csrfToken: string;
  createdAt: number;
  lastSeenAt: number;
}

/** last_seen_at is rewritten at most this often: a page view is not a write each time. */
const TOUCH_EVERY_MS = 30_000;
export const SESSION_ID_LENGTH = 12;

export async function createSession(db: Db, operatorId: number, now: number): Promise<{ token: string; csrfToken: string }> {
  const token = newToken();
  const csrfToken = newToken();
  await db
    .insertInto('console_session')
    .values({ token_hash: hashToken(token), operator_id: operatorId, csrf_token: csrfToken, created_at: now, last_seen_at: now, revoked_at: null, flash: null })
    .execute();
  return { token, csrfToken };
}

function live(row: { created_at: number; last_seen_at: number; revoked_at: number | null }, now: number, policy: SessionPolicy): boolean {
  return row.revoked_at === null && now - Number(row.last_seen_at) < policy.idleMs && now - Number(row.created_at) < policy.maxMs;
}

/** The live session of a cookie token, its last use moved to `now`; undefined when unknown, revoked or expired. */
export async function sessionOf(db: Db, token: string, now: number, policy: SessionPolicy): Promise<Session | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const tokenHash = hashToken(token);
  const row = await db
    .selectFrom('console_session as s')
    .innerJoin('console_operator as o', 'o.id', 's.operator_id')
    .select(['s.token_hash', 's.operator_id', 's.csrf_token', 's.created_at', 's.last_seen_at', 's.revoked_at', 'o.name'])
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!row || !live(row, now, policy)) return undefined;
  if (now - Number(row.last_seen_at) >= TOUCH_EVERY_MS) {
    await db.updateTable('console_session').set({ last_seen_at: now }).where('token_hash', '=', tokenHash).execute();
  }
  return {
    id: tokenHash.slice(0, SESSION_ID_LENGTH),
    operatorId: Number(row.operator_id),
    operatorName: row.name,
    csrfToken: row.csrf_token,
    createdAt: Number(row.created_at),
    lastSeenAt: now,
  };
}

/** Sign-out: the session of this cookie token ends now. */
export async function endSession(db: Db, token: string, now: number): Promise<void> {
  if (!TOKEN_PATTERN.test(token)) return;
  await db.updateTable('console_session').set({ revoked_at: now, flash: null }).where('token_hash', '=', hashToken(token)).where('revoked_at', 'is', null).execute();
}

/** Every live session, newest first (the CLI's list). */
export async function liveSessions(db: Db, now: number, policy: SessionPolicy): Promise<Session[]> {
  const rows = await db
    .selectFrom('console_session as s')
    .innerJoin('console_operator as o', 'o.id', 's.operator_id')
    .select(['s.token_hash', 's.operator_id', 's.csrf_token', 's.created_at', 's.last_seen_at', 's.revoked_at', 'o.name'])
    .where('s.revoked_at', 'is', null)
    .where('s.created_at', '>', now - policy.maxMs)
    .where('s.last_seen_at', '>', now - policy.idleMs)
    .orderBy('s.created_at', 'desc')
    .execute();
  return rows.map((row) => ({
    id: row.token_hash.slice(0, SESSION_ID_LENGTH),
    operatorId: Number(row.operator_id),
    operatorName: row.name,
    csrfToken: row.csrf_token,
    createdAt: Number(row.created_at),
    lastSeenAt: Number(row.last_seen_at),
  }));
}

/**
 * End sessions from the CLI: one by its short id, every one of an operator, or all. Returns how
 * many were live and are now ended.
 */
export async function revokeSessions(db: Db, which: { id: string } | { operatorId: number } | 'all', now: number): Promise<number> {
  let query = db.updateTable('console_session').set({ revoked_at: now, flash: null }).where('revoked_at', 'is', null);
  if (which !== 'all' && 'id' in which) {
    if (!/^[0-9a-f]{12}$/.test(which.id)) return 0;
    query = query.where('token_hash', 'like', `${which.id}%`);
  } else if (which !== 'all') query = query.where('operator_id', '=', which.operatorId);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Keep a value for this session's next page only (a new API key's token: shown once). */
export async function putFlash(db: Db, token: string, value: string): Promise<void> {
  await db.updateTable('console_session').set({ flash: value }).where('token_hash', '=', hashToken(token)).execute();
}

/** The flash value, removed as it is read. */
export async function takeFlash(db: Db, token: string): Promise<string | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  const tokenHash = hashToken(token);
  const row = await db.selectFrom('console_session').select('flash').where('token_hash', '=', tokenHash).executeTakeFirst();
  if (!row?.flash) return undefined;
  await db.updateTable('console_session').set({ flash: null }).where('token_hash', '=', tokenHash).execute();
  return row.flash;
}
