/**
 * Invites on SQLite and PostgreSQL: valid until they expire, spent once, only their hash stored;
 * and the WebAuthn challenges beside them, single use and expiring.
 */
import { describe, expect, it } from 'vitest';
import { spendChallenge, storeChallenge } from '../../../../src/features/console/challenges.server.ts';
import { createInvite, inviteState, spendInvite } from '../../../../src/features/console/invites.server.ts';
import { hashToken } from '../../../../src/features/console/tokens.ts';
import { ENGINES, useTestDb } from '../../../helpers/contact-fixtures.ts';

const T0 = 1_800_000_000_000;
const HOUR = 3_600_000;

describe.each(ENGINES)('console invites on %s', (engine) => {
  const suite = useTestDb(engine);

  it('is valid until it expires, and stores only its hash', async () => {
    const db = suite.db.handle.kysely;
    const { token, invite } = await createInvite(db, 'Ada', T0, 24 * HOUR);
    expect(invite).toEqual({ name: 'Ada', expiresAt: T0 + 24 * HOUR });
    const rows = await db.selectFrom('console_invite').selectAll().where('name', '=', 'Ada').execute();
    expect(rows.map((r) => r.token_hash)).toEqual([hashToken(token)]);
    expect(await inviteState(db, token, T0 + 24 * HOUR - 1)).toEqual({ kind: 'valid', invite });
    expect(await inviteState(db, token, T0 + 24 * HOUR)).toEqual({ kind: 'expired' });
    expect(await spendInvite(db, token, T0 + 25 * HOUR)).toEqual({ kind: 'expired' });
  });

  it('is spent once, even by two enrolments at the same moment', async () => {
    const db = suite.db.handle.kysely;
    const { token } = await createInvite(db, 'Grace', T0, HOUR);
    const outcomes = await Promise.all([spendInvite(db, token, T0 + 1), spendInvite(db, token, T0 + 1)]);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['used', 'valid']);
    expect(await inviteState(db, token, T0 + 2)).toEqual({ kind: 'used' });
  });

  it('knows nothing of a token it did not make', async () => {
    const db = suite.db.handle.kysely;
    expect(await inviteState(db, 'A'.repeat(43), T0)).toEqual({ kind: 'unknown' });
    expect(await inviteState(db, "' or 1=1 --", T0)).toEqual({ kind: 'unknown' });
  });

  it('takes a challenge once, for its own purpose, before it expires', async () => {
    const db = suite.db.handle.kysely;
    await storeChallenge(db, 'c1', 'sign-in', T0);
    await storeChallenge(db, 'c2', 'enrol', T0);
    await storeChallenge(db, 'c3', 'sign-in', T0);
    expect(await spendChallenge(db, 'c1', 'enrol', T0 + 1)).toBe(false);
    expect(await spendChallenge(db, 'c1', 'sign-in', T0 + 1)).toBe(true);
    expect(await spendChallenge(db, 'c1', 'sign-in', T0 + 1)).toBe(false);
    expect(await spendChallenge(db, 'c3', 'sign-in', T0 + HOUR)).toBe(false);
    // Issuing sweeps the expired ones.
    await storeChallenge(db, 'c4', 'sign-in', T0 + HOUR);
    const left = await db.selectFrom('console_challenge').select('challenge').orderBy('challenge').execute();
    expect(left.map((r) => r.challenge)).toEqual(['c4']);
  });
});
