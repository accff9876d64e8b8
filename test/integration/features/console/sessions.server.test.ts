/**
 * Console sessions on SQLite and PostgreSQL, with the clock passed in: idle and absolute expiry,
 * sign-out, revocation from the CLI's functions, the one-time flash value.
 */
import { describe, expect, it } from 'vitest';
import { addOperator } from '../../../../src/features/console/operators.server.ts';
import { createSession, endSession, liveSessions, putFlash, revokeSessions, sessionOf, takeFlash } from '../../../../src/features/console/sessions.server.ts';
import { hashToken } from '../../../../src/features/console/tokens.ts';
import { ENGINES, useTestDb } from '../../../helpers/contact-fixtures.ts';

const T0 = 1_800_000_000_000;
const MINUTE = 60_000;
const POLICY = { idleMs: 30 * MINUTE, maxMs: 12 * 60 * MINUTE };

describe.each(ENGINES)('console sessions on %s', (engine) => {
  const suite = useTestDb(engine);

  it('keeps a used session alive, ends an idle one after the idle expiry', async () => {
    const db = suite.db.handle.kysely;
    const operatorId = await addOperator(db, 'Ada', T0);
    const { token, csrfToken } = await createSession(db, operatorId, T0);
    // Only the hash is stored.
    const rows = await db.selectFrom('console_session').selectAll().where('operator_id', '=', operatorId).execute();
    expect(rows.map((r) => r.token_hash)).toEqual([hashToken(token)]);

    const seen = await sessionOf(db, token, T0 + 29 * MINUTE, POLICY);
    expect(seen).toMatchObject({ operatorId, operatorName: 'Ada', csrfToken, createdAt: T0 });
    // Used at +29 min: idle counts from there.
    expect(await sessionOf(db, token, T0 + 58 * MINUTE, POLICY)).toBeDefined();
    expect(await sessionOf(db, token, T0 + 58 * MINUTE + 30 * MINUTE, POLICY)).toBeUndefined();
  });

  it('ends a busy session at the absolute expiry', async () => {
    const db = suite.db.handle.kysely;
    const operatorId = await addOperator(db, 'Grace', T0);
    const { token } = await createSession(db, operatorId, T0);
    let now = T0;
    while (now < T0 + POLICY.maxMs - 20 * MINUTE) {
      now += 20 * MINUTE;
      expect(await sessionOf(db, token, now, POLICY), `at +${(now - T0) / MINUTE} min`).toBeDefined();
    }
    expect(await sessionOf(db, token, T0 + POLICY.maxMs, POLICY)).toBeUndefined();
  });

  it('refuses a signed-out, revoked, unknown or malformed token', async () => {
    const db = suite.db.handle.kysely;
    const operatorId = await addOperator(db, 'Linus', T0);
    const a = await createSession(db, operatorId, T0);
    const b = await createSession(db, operatorId, T0);
    const c = await createSession(db, operatorId, T0);
    await endSession(db, a.token, T0 + 1);
    expect(await sessionOf(db, a.token, T0 + 2, POLICY)).toBeUndefined();

    const listed = await liveSessions(db, T0 + 2, POLICY);
    const idOfB = hashToken(b.token).slice(0, 12);
    expect(listed.map((s) => s.id)).toContain(idOfB);
    expect(listed.map((s) => s.id)).not.toContain(hashToken(a.token).slice(0, 12));
    expect(await revokeSessions(db, { id: idOfB }, T0 + 3)).toBe(1);
    expect(await revokeSessions(db, { id: idOfB }, T0 + 3)).toBe(0);
    expect(await revokeSessions(db, { id: "'; drop table x; --" }, T0 + 3)).toBe(0);
    expect(await sessionOf(db, b.token, T0 + 4, POLICY)).toBeUndefined();
    expect(await sessionOf(db, c.token, T0 + 4, POLICY)).toBeDefined();
    expect(await revokeSessions(db, { operatorId }, T0 + 5)).toBe(1);
    expect(await sessionOf(db, c.token, T0 + 6, POLICY)).toBeUndefined();

    expect(await sessionOf(db, 'x'.repeat(43), T0, POLICY)).toBeUndefined();
    expect(await sessionOf(db, 'not a token', T0, POLICY)).toBeUndefined();
  });

  it('revokes every session at once', async () => {
    const db = suite.db.handle.kysely;
    const operatorId = await addOperator(db, 'Barbara', T0);
    const tokens = await Promise.all([1, 2, 3].map(() => createSession(db, operatorId, T0)));
    expect(await revokeSessions(db, 'all', T0 + 1)).toBeGreaterThanOrEqual(3);
    for (const { token } of tokens) expect(await sessionOf(db, token, T0 + 2, POLICY)).toBeUndefined();
  });

  it('shows a flash value once', async () => {
    const db = suite.db.handle.kysely;
    const { token } = await createSession(db, await addOperator(db, 'Edsger', T0), T0);
    await putFlash(db, token, 'adk_secret');
    expect(await takeFlash(db, token)).toBe('adk_secret');
    expect(await takeFlash(db, token)).toBeUndefined();
  });
});
