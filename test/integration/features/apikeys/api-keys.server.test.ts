/**
 * The api_key repository on SQLite and PostgreSQL, and what the data interface answers when the
 * database cannot say whether a key is live.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createKey, findLiveKey, hashToken, listKeys, revokeKey } from '../../../../src/features/apikeys/index.ts';
import { createTempDatabase } from '../../../helpers/postgres.ts';
import { startServer, type RunningServer } from '../../../helpers/server.ts';
import { ENGINES, openTestDb } from '../../../helpers/contact-fixtures.ts';

describe.each(ENGINES)('api_key on %s', (engine) => {
  it('stores only the hash, finds live keys by it, and forgets revoked ones', async () => {
    const test = await openTestDb(engine);
    try {
      const { kysely: db } = test.handle;
      const made = await createKey(db, { name: 'Acme', minuteLimit: 600, dayLimit: 50_000, now: 1_700_000_000_000 });
      const other = await createKey(db, { name: 'Other', minuteLimit: 5, dayLimit: 7, now: 1_700_000_000_001 });
      expect(made.key).toEqual({ id: made.key.id, name: 'Acme', tokenPrefix: made.token.slice(0, 8), minuteLimit: 600, dayLimit: 50_000, createdAt: 1_700_000_000_000, revokedAt: null });
      const stored = await db.selectFrom('api_key').selectAll().execute();
      expect(JSON.stringify(stored)).not.toContain(made.token.slice(8));
      expect(stored.map((row) => row.token_hash)).toEqual([hashToken(made.token), hashToken(other.token)]);

      expect(await findLiveKey(db, hashToken(made.token))).toEqual(made.key);
      expect(await findLiveKey(db, hashToken(`adk_${randomBytes(32).toString('base64url')}`))).toBeUndefined();

      expect(await revokeKey(db, made.key.id, 1_700_000_100_000)).toBe('revoked');
      expect(await revokeKey(db, made.key.id, 1_700_000_200_000)).toBe('already');
      expect(await revokeKey(db, 999_999, 1_700_000_200_000)).toBe('unknown');
      expect(await findLiveKey(db, hashToken(made.token))).toBeUndefined();
      expect(await findLiveKey(db, hashToken(other.token))).toEqual(other.key);
      expect((await listKeys(db)).map((k) => [k.name, k.revokedAt])).toEqual([
        ['Acme', 1_700_000_100_000],
        ['Other', null],
      ]);
    } finally {
      await test.dispose();
    }
  });
});

describe('API keys while the database is gone', () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });

  it('answers 503 with Retry-After for a key it cannot check, and keeps serving anonymous limits', async () => {
    const temp = await createTempDatabase('keysdown');
    server = await startServer({ DATABASE_URL: temp.url });
    await temp.drop();
    const res = await fetch(`${server.url}/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-02`, {
      headers: { authorization: `Bearer adk_${randomBytes(32).toString('base64url')}` },
    });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('5');
    expect(await res.json()).toEqual({ code: 'service_unavailable', message: expect.stringMatching(/^API keys cannot be checked just now/) });
    // The limiter itself never fails: /healthz still answers and the server is still running.
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.child.exitCode).toBeNull();
  });
});
