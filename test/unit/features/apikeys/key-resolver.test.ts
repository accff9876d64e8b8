import { describe, expect, it } from 'vitest';
import { newToken, hashToken, type ApiKey } from '../../../../src/features/apikeys/api-key.ts';
import { createKeyResolver, LOOKUP_BUDGET } from '../../../../src/features/apikeys/key-resolver.ts';

function key(id: number): ApiKey {
  return { id, name: `k${id}`, tokenPrefix: 'adk_abcd', minuteLimit: 600, dayLimit: 50_000, createdAt: 0, revokedAt: null };
}

/** A fake table: token hash to key, counting the queries it answers. */
function table(entries: Record<string, ApiKey> = {}) {
  const rows = new Map(Object.entries(entries));
  let queries = 0;
  let down = false;
  return {
    rows,
    get queries() {
      return queries;
    },
    set down(value: boolean) {
      down = value;
    },
    find: async (hash: string) => {
      queries++;
      await Promise.resolve();
      if (down) throw new Error('connect ECONNREFUSED');
      return rows.get(hash);
    },
  };
}

describe('createKeyResolver', () => {
  it('asks the database once per TTL for a live key, and sees a revocation once the TTL is over', async () => {
    const token = newToken();
    const db = table({ [hashToken(token)]: key(1) });
    let now = 0;
    const resolver = createKeyResolver({ find: db.find, ttlMs: 30_000, now: () => now });
    for (let i = 0; i < 100; i++) expect((await resolver.resolve(token, 'c')).kind).toBe('valid');
    expect(db.queries).toBe(1);
    db.rows.clear(); // revoked
    now = 29_999;
    expect((await resolver.resolve(token, 'c')).kind).toBe('valid');
    now = 30_001;
    expect((await resolver.resolve(token, 'c')).kind).toBe('invalid');
    expect(db.queries).toBe(2);
  });

  it('remembers unknown tokens too, and shares one query between concurrent requests', async () => {
    const db = table();
    const resolver = createKeyResolver({ find: db.find, ttlMs: 30_000 });
    const token = newToken();
    const answers = await Promise.all(Array.from({ length: 50 }, () => resolver.resolve(token, 'c')));
    expect(answers.every((a) => a.kind === 'invalid')).toBe(true);
    expect(db.queries).toBe(1);
    await resolver.resolve(token, 'c');
    expect(db.queries).toBe(1);
  });

  it('answers unavailable when the database fails, and does not remember the failure', async () => {
    const token = newToken();
    const db = table({ [hashToken(token)]: key(1) });
    const resolver = createKeyResolver({ find: db.find, ttlMs: 30_000 });
    db.down = true;
    expect((await resolver.resolve(token, 'c')).kind).toBe('unavailable');
    db.down = false;
    expect((await resolver.resolve(token, 'c')).kind).toBe('valid');
  });

  it('lets one client cause at most the lookup budget of queries per minute', async () => {
    const db = table();
    const resolver = createKeyResolver({ find: db.find, ttlMs: 30_000, now: () => 1_000 });
    for (let i = 0; i < LOOKUP_BUDGET.limit; i++) expect((await resolver.resolve(newToken(), 'guesser')).kind).toBe('invalid');
    // Past the budget the token is not judged at all: retry later, never "invalid" (a live key
    // behind the same address must not read as revoked).
    for (let i = 0; i < 20; i++) {
      const answer = await resolver.resolve(newToken(), 'guesser');
      expect(answer).toEqual({ kind: 'throttled', retryAfterSeconds: expect.any(Number) });
      expect(answer.kind === 'throttled' && answer.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    }
    expect(db.queries).toBe(LOOKUP_BUDGET.limit);
    // Another client is not affected.
    await resolver.resolve(newToken(), 'other');
    expect(db.queries).toBe(LOOKUP_BUDGET.limit + 1);
  });

  it('holds at most maxEntries answers', async () => {
    const db = table();
    const resolver = createKeyResolver({ find: db.find, ttlMs: 30_000, maxEntries: 10 });
    for (let i = 0; i < 25; i++) await resolver.resolve(newToken(), `client-${i}`);
    expect(resolver.size).toBeLessThanOrEqual(10);
  });

  it('never lets a flood of unknown tokens evict a live key', async () => {
    const token = newToken();
    const db = table({ [hashToken(token)]: key(1) });
    const resolver = createKeyResolver({ find: db.find, ttlMs: 30_000, maxEntries: 10 });
    expect((await resolver.resolve(token, 'integrator')).kind).toBe('valid');
    for (let i = 0; i < 100; i++) await resolver.resolve(newToken(), `guesser-${i}`);
    const queries = db.queries;
    expect((await resolver.resolve(token, 'integrator')).kind).toBe('valid');
    expect(db.queries).toBe(queries);
  });
});
