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
import { CEREMONY_TIMEOUT_MS, spendChallenge, storeChallenge } from './challenges.server.ts';
import { relyingParty, type ConsoleSettings } from './console-deps.ts';
import { inviteState, spendInvite, type InviteState } from './invites.server.ts';
import { addCredential, addOperator, credentialUsed, findCredential } from './operators.server.ts';

export type Refusal = { refused: string };

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
  const { rpID, origin } = relyingParty(config);
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response,
      expectedChallenge: (challenge) => spendChallenge(db.kysely, challenge, 'enrol', now),
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: true,
    });
  } catch (error) {
    return { refused: `The passkey was not accepted: ${(error as Error).message}` };
  }
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
  const { rpID, origin } = relyingParty(config);
  let verification;
  try {
    verification = await verifyAuthenticationResponse({
      response,
      expectedChallenge: (challenge) => spendChallenge(db.kysely, challenge, 'sign-in', now),
      expectedOrigin: origin,
      expectedRPID: rpID,
      credential: { id: stored.id, publicKey: stored.publicKey, counter: stored.counter, transports: stored.transports },
      requireUserVerification: true,
    });
  } catch (error) {
    return { refused: `The passkey was not accepted: ${(error as Error).message}` };
  }
  if (!verification.verified) return { refused: 'The passkey was not accepted.' };
  await credentialUsed(db.kysely, stored.id, verification.authenticationInfo.newCounter, now);
  return { operatorId: stored.operatorId };
}
