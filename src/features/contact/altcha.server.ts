/**
 * The contact form's optional proof-of-work check (ALTCHA, altcha-lib v2): challenges signed with
 * CONTACT_ALTCHA_HMAC_KEY, solutions verified here, and each solution spent once (the
 * `contact_altcha_used` table, migration 0004, on both engines). No third party is involved:
 * the challenge is an HMAC-signed PBKDF2 puzzle the browser (the `altcha` widget) or an API
 * client (altcha-lib's `solveChallenge`) solves; the server checks it with one HMAC.
 *
 * Spent solutions are remembered per database, not per key: instances that share a PostgreSQL
 * database refuse a replay across the fleet, instances with separate SQLite files would each
 * take a solution once (README, "Proof of work"). Sharing the HMAC key means sharing the database.
 *
 * Deterministic mode (altcha-lib's `counter`): the server derives the key for a secret counter
 * and signs it (`keySignature`), so verifying costs one HMAC rather than a key derivation.
 */
import { createHmac } from 'node:crypto';
import { createChallenge, randomInt, verifySolution, type Challenge, type Solution } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/pbkdf2';
import type { DbHandle } from '../../db/create-db.ts';
import type { Deadline } from '../../db/deadline.ts';
import type { Endpoint } from '../../lib/endpoint.ts';
import { ALTCHA_LIMITS, AltchaPayload, challengeFailed, challengeReplayed, challengeRequired } from './altcha.ts';

/** PBKDF2 iterations per attempt, and the range of the secret counter the solver must reach. */
const COST = 1_000;
const COUNTER_MIN = 1_000;
const COUNTER_MAX = 4_000;

/** The key that signs derived keys, kept apart from the one that signs challenges. */
function keySignatureSecret(hmacKey: string): string {
  return createHmac('sha256', hmacKey).update('altcha key signature').digest('hex');
}

/** A new challenge, valid for ALTCHA_LIMITS.challengeTtlSeconds. */
export function issueChallenge(hmacKey: string, now = Date.now()): Promise<Challenge> {
  return createChallenge({
    algorithm: 'PBKDF2/SHA-256',
    cost: COST,
    counter: randomInt(COUNTER_MAX, COUNTER_MIN),
    deriveKey,
    expiresAt: Math.floor(now / 1000) + ALTCHA_LIMITS.challengeTtlSeconds,
    hmacSignatureSecret: hmacKey,
    hmacKeySignatureSecret: keySignatureSecret(hmacKey),
  });
}

/** What `GET /api/contact/challenge` needs: the key that turns the check on, when it is set. */
export interface ChallengeDeps {
  config: { CONTACT_ALTCHA_HMAC_KEY?: string | undefined };
}

/**
 * `GET /api/contact/challenge` as an endpoint (src/lib/endpoint.ts): a fresh challenge, or 204
 * when the check is off. HEAD answers the same status and headers without deriving a key (RFC
 * 9110 section 9.3.2 lets it skip the content): the page asks with HEAD whether the check is on,
 * and the widget then GETs its own. The route table declares GET; the caller answers HEAD from it
 * and refuses other methods (src/lib/methods.ts).
 */
export const challengeEndpoint: Endpoint<ChallengeDeps> = async (request, deps) => {
  const hmacKey = deps.config.CONTACT_ALTCHA_HMAC_KEY;
  const headers = { 'cache-control': 'no-store' };
  if (hmacKey === undefined) return { status: 204, headers, body: null };
  // PBKDF2 work a HEAD would throw away.
  const body = request.headOnly ? null : JSON.stringify(await issueChallenge(hmacKey));
  return { status: 200, headers: { ...headers, 'content-type': 'application/json' }, body };
};

/** The solution in `value` (the `altcha` member or form field), decoded; throws the 400 otherwise. */
export function decodePayload(value: unknown): AltchaPayload {
  if (value === undefined || value === null || value === '') throw challengeRequired();
  if (typeof value !== 'string' || value.length > ALTCHA_LIMITS.payloadChars) throw challengeFailed('The altcha value is not a solution payload.');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    throw challengeFailed('The altcha value is not base64-encoded JSON.');
  }
  const parsed = AltchaPayload.safeParse(json);
  if (!parsed.success) throw challengeFailed('The altcha value does not hold a challenge and its solution.');
  return parsed.data;
}

export interface SpendOptions {
  /** The submission's Idempotency-Key: a retry of the submission that spent a solution passes. */
  idempotencyKey: string | undefined;
  now?: number;
  /** The request's deadline (src/db/deadline.ts), or a budget in ms; 2 s without either. */
  deadline?: Deadline | number;
}

/**
 * Verify the solution in `value` and spend it. Throws a 400 HttpError (challenge_required,
 * challenge_failed, challenge_replayed) when it does not buy this submission; a database
 * failure is thrown as it is.
 */
export async function spendSolution(db: DbHandle, hmacKey: string, value: unknown, options: SpendOptions): Promise<void> {
  const payload = decodePayload(value);
  const result = await verifySolution({
    // The schema checked the shapes; altcha-lib's types differ only in optional members.
    challenge: payload.challenge as Challenge,
    solution: payload.solution as Solution,
    deriveKey,
    hmacSignatureSecret: hmacKey,
    hmacKeySignatureSecret: keySignatureSecret(hmacKey),
  }).catch(() => undefined);
  if (result?.expired) throw challengeFailed('The challenge has expired.', 'Fetch a new challenge, solve it and send the form again.');
  if (!result?.verified) throw challengeFailed('The solution does not solve the challenge, or the challenge was not issued by this server.');

  const now = options.now ?? Date.now();
  const key = options.idempotencyKey ?? null;
  // A database failure propagates as it is: the handler answers 502 as for a failed store.
  const spentBy = await db.within(options.deadline ?? 2_000, async (kysely) => {
    // Expired rows can no longer match a valid solution: drop them as we go (indexed).
    await kysely.deleteFrom('contact_altcha_used').where('expires_at', '<', now).execute();
    const inserted = await kysely
      .insertInto('contact_altcha_used')
      .values({ signature: payload.challenge.signature, expires_at: payload.challenge.parameters.expiresAt * 1000, idempotency_key: key })
      .onConflict((oc) => oc.column('signature').doNothing())
      .returning('signature')
      .executeTakeFirst();
    if (inserted) return undefined;
    return kysely.selectFrom('contact_altcha_used').select('idempotency_key').where('signature', '=', payload.challenge.signature).executeTakeFirstOrThrow();
  });
  // Spent before: only by this very submission retried with its Idempotency-Key.
  if (spentBy !== undefined && (key === null || spentBy.idempotency_key !== key)) throw challengeReplayed();
}
