/**
 * The refund script (a 304 gives its day unit back) against the run's Redis, step for step with
 * the memory store, including a refund that arrives after midnight and concurrent takes.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryStore } from '../../../../src/features/ratelimit/memory-store.ts';
import type { Window } from '../../../../src/features/ratelimit/policies.ts';
import { createRedisStore, type RedisStore } from '../../../../src/features/ratelimit/redis-store.server.ts';
import { PATIENT_REDIS_STORE, testRedisUrl } from '../../../helpers/redis.ts';

const DATA: Window[] = [
  { name: 'data-minute', limit: 1000, kind: 'bucket', periodSeconds: 60 },
  { name: 'data-day', limit: 3, kind: 'utc-day', periodSeconds: 86_400 },
];
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

const stores: RedisStore[] = [];
function redisStore(): RedisStore {
  const s = createRedisStore({ url: testRedisUrl(), log: pino({ level: 'silent' }), prefix: `refund-${randomBytes(4).toString('hex')}:`, clock: 'caller', ...PATIENT_REDIS_STORE });
  stores.push(s);
  return s;
}
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
});

describe('refunds in Redis', () => {
  it('gives the day unit back, as the memory store does', async () => {
    const redis = redisStore();
    const memory = createMemoryStore({ maxKeys: 10 });
    for (let i = 0; i < 6; i++) {
      const [fromRedis, fromMemory] = [await redis.take('c', DATA, T0 + i), memory.takeNow('c', DATA, T0 + i)];
      expect(fromRedis.allowed).toBe(true);
      expect(fromRedis.shared).toBe(true);
      expect({ ...fromRedis, shared: undefined }).toEqual(fromMemory);
      expect(fromRedis.windows[1]!.remaining).toBe(2);
      await redis.refund('c', DATA, fromRedis);
      memory.refundNow('c', DATA, fromMemory);
    }
  });

  it('refunds nothing for a refused take, and nothing into the next day', async () => {
    const redis = redisStore();
    for (let i = 0; i < 3; i++) expect((await redis.take('c', DATA, T0)).allowed).toBe(true);
    const refused = await redis.take('c', DATA, T0);
    expect(refused.allowed).toBe(false);
    await redis.refund('c', DATA, refused);
    expect((await redis.take('c', DATA, T0)).allowed).toBe(false);

    // One second before 00:00 UTC: the refund arrives after midnight.
    const late = Date.UTC(2025, 0, 16) - 1_000;
    const other = redisStore();
    const yesterday = await other.take('d', DATA, late);
    const today = await other.take('d', DATA, late + 2_000);
    expect(today.windows[1]!.remaining).toBe(2);
    await other.refund('d', DATA, yesterday);
    expect((await other.take('d', DATA, late + 3_000)).windows[1]!.remaining).toBe(1);
  });

  it('never admits more than the quota when half of 200 concurrent takes are refunded', async () => {
    const redis = redisStore();
    const decisions = await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const decision = await redis.take('e', DATA, T0);
        if (decision.allowed && i % 2 === 0) await redis.refund('e', DATA, decision);
        return { decision, refunded: i % 2 === 0 };
      }),
    );
    const kept = decisions.filter((d) => d.decision.allowed && !d.refunded).length;
    expect(kept).toBeLessThanOrEqual(3);
    expect(kept).toBeGreaterThan(0);
  });
});
