import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/app/config.ts';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';
import { policiesFromConfig } from '../../../../src/features/ratelimit/policies.ts';
import { createRedisStore } from '../../../../src/features/ratelimit/redis-store.server.ts';
import { freePort } from '../../../helpers/processes.ts';

describe('the Redis store\'s metrics', () => {
  it('counts redis_errors_total when Redis cannot be reached, and answers from memory', async () => {
    const metrics = createMetrics({ processMetrics: false });
    // A port nothing listens on: the connection is refused at once.
    const store = createRedisStore({ url: `redis://127.0.0.1:${await freePort()}`, log: pino({ level: 'silent' }), meter: metrics.meter, retryAfterFailureMs: 0, firstConnectWaitMs: 500 });
    try {
      const windows = policiesFromConfig(loadConfig({})).site;
      const decision = await store.take('client', windows, Date.now());
      expect(decision.allowed).toBe(true);
      expect(store.degraded).toBe(true);
      const line = (await metrics.scrape()).split('\n').find((l) => l.startsWith('redis_errors_total '));
      expect(Number(line?.split(' ')[1])).toBeGreaterThanOrEqual(1);
    } finally {
      await store.close();
    }
  });
});
