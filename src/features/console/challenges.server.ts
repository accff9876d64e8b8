/**
 * WebAuthn challenges between a ceremony's two requests (options, then the signed answer). In
 * the database, so the answer may reach another instance of the fleet than the options did.
 * Each is single use (WebAuthn section 13.4.3: a challenge must not be accepted twice) and
 * expires with the ceremony's timeout; expired ones are swept whenever a new one is issued, so
 * the table holds at most what the sign-in rate limit lets through in a few minutes.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
type Db = Kysely<Database>;
export type ChallengePurpose = 'enrol' | 'sign-in';

/** How long a ceremony may take: the `timeout` the options carry, plus the request's travel. */
export const CEREMONY_TIMEOUT_MS = 120_000;

/** Keep a challenge the library chose (base64url, 32 random bytes) until answered or expired. */
export async function storeChallenge(db: Db, challenge: string, purpose: ChallengePurpose, now: number): Promise<void> {
  await db.deleteFrom('console_challenge').where('expires_at', '<=', now).execute();
  await db.insertInto('console_challenge').values({ challenge, purpose, expires_at: now + CEREMONY_TIMEOUT_MS + 30_000 }).execute();
}

/** True once for a challenge issued for `purpose` and not expired; it is gone afterwards. */
export async function spendChallenge(db: Db, challenge: string, purpose: ChallengePurpose, now: number): Promise<boolean> {
  const result = await db.deleteFrom('console_challenge').where('challenge', '=', challenge).where('purpose', '=', purpose).where('expires_at', '>', now).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
