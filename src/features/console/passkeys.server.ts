/**
 * The two WebAuthn ceremonies of the console through @simplewebauthn/server (v14): enrolment
 * (registration, from an invite) and sign-in (authentication, with a discoverable credential, so
 * the operator types nothing). Both require user verification (a PIN or biometric on the
 * authenticator), so a passkey alone, without its owner, does not sign in. Challenges are issued
 * and spent in the database (challenges.server.ts).
 */
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { DbHandle } from '../../db/create-db.ts';
import { CEREMONY_TIMEOUT_MS, spendChallenge, storeChallenge, type ChallengePurpose } from './challenges.server.ts';
import { relyingParty, type ConsoleSettings } from './console-deps.ts';
import { inviteState, spendInvite, type InviteState } from './invites.server.ts';
import { addCredential, addOperator, credentialUsed, findCredential } from './operators.server.ts';

export type Refusal = { refused: string };

/**
 * What both ceremonies check of a response: the challenge, spent in the same step so it serves
 * once; the origin and the relying party's id; user verification (WebAuthn Level 3, 7.1 and 7.2).
 */
function expected(db: DbHandle, config: ConsoleSettings, purpose: ChallengePurpose, now: number) {
  const { rpID, origin } = relyingParty(config);
  return {
    expectedChallenge: (challenge: string) => spendChallenge(db.kysely, challenge, purpose, now),
    expectedOrigin: origin,
    expectedRPID: rpID,
    requireUserVerification: true,
  };
}

/** The library's verification, or a refusal saying why it threw (a malformed or foreign response). */
async function accepted<T>(verification: Promise<T>): Promise<T | Refusal> {
  try {
    return await verification;
  } catch (error) {
    return { refused: `The passkey was not accepted: ${(error as Error).message}` };
  }
}

export async function enrolmentOptions(db: DbHandle, config: ConsoleSettings, invite: string, now: number): Promise<PublicKeyCredentialCreationOptionsJSON | Refusal> {
  const state = await inviteState(db.kysely, invite, now);
  if (state.kind !== 'valid') return { refused: inviteRefusal(state) };
  const { rpID } = relyingParty(config);
  const options = await generateRegistrationOptions({
    rpName: `${rpID} console`,
    rpID,
    userName: state.invite.name,
    userDisplayName: state.invite.name,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: 'none',
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  await storeChallenge(db.kysely, options.challenge, 'enrol', now);
  return options;
}

export function inviteRefusal(state: Exclude<InviteState, { kind: 'valid' }>): string {
  if (state.kind === 'used') return 'This invite has been used already. Ask for a new one (npm run -s admin:invite).';
  if (state.kind === 'expired') return 'This invite has expired. Ask for a new one (npm run -s admin:invite).';
  return 'This invite is not known. Check the link, or ask for a new one (npm run -s admin:invite).';
}

/** Verify a new passkey and, in one transaction, spend the invite and create the operator. */
export async function enrol(db: DbHandle, config: ConsoleSettings, invite: string, response: RegistrationResponseJSON, now: number): Promise<{ operatorId: number; name: string } | Refusal> {
  const before = await inviteState(db.kysely, invite, now);
  if (before.kind !== 'valid') return { refused: inviteRefusal(before) };
  const verification = await accepted(verifyRegistrationResponse({ response, ...expected(db, config, 'enrol', now) }));
  if ('refused' in verification) return verification;
  if (!verification.verified) return { refused: 'The passkey was not accepted.' };
  const { credential } = verification.registrationInfo;
  return db.kysely.transaction().execute(async (tx) => {
    const spent = await spendInvite(tx, invite, now);
    if (spent.kind !== 'valid') return { refused: inviteRefusal(spent) };
    const operatorId = await addOperator(tx, spent.invite.name, now);
    await addCredential(tx, { id: credential.id, operatorId, publicKey: credential.publicKey, counter: credential.counter, transports: credential.transports ?? [] }, now);
    return { operatorId, name: spent.invite.name };
  });
}

export async function signInOptions(db: DbHandle, config: ConsoleSettings, now: number): Promise<PublicKeyCredentialRequestOptionsJSON> {
  const { rpID } = relyingParty(config);
  const options = await generateAuthenticationOptions({ rpID, userVerification: 'required', timeout: CEREMONY_TIMEOUT_MS });
  await storeChallenge(db.kysely, options.challenge, 'sign-in', now);
  return options;
}

/** Verify a sign-in assertion against the stored passkey; the operator's id when it holds. */
export async function signIn(db: DbHandle, config: ConsoleSettings, response: AuthenticationResponseJSON, now: number): Promise<{ operatorId: number } | Refusal> {
  const stored = typeof response.id === 'string' ? await findCredential(db.kysely, response.id) : undefined;
  if (!stored) return { refused: 'This passkey is not registered here (it may have been removed). Ask for a new invite.' };
  const credential = { id: stored.id, publicKey: stored.publicKey, counter: stored.counter, transports: stored.transports };
  const verification = await accepted(verifyAuthenticationResponse({ response, credential, ...expected(db, config, 'sign-in', now) }));
  if ('refused' in verification) return verification;
  if (!verification.verified) return { refused: 'The passkey was not accepted.' };
  await credentialUsed(db.kysely, stored.id, verification.authenticationInfo.newCounter, now);
  return { operatorId: stored.operatorId };
}
