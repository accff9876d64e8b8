/**
 * The edge's view of rate limiting: the windows of a request's rate class (the route table
 * decides the class, src/server/routes.ts), one atomic take from the store, the spec's headers, and the 429 for a refused request. The
 * policy, bucket math and stores live in src/features/ratelimit.
 */
import type { Config } from './config.ts';
import {
  createMemoryStore,
  createRedisStore,
  dataHeaders,
  policiesFromConfig,
  siteHeaders,
  type RateLimitStore,
} from '../features/ratelimit/index.ts';
import type { EdgeLimiter, LimitOutcome } from '../server/http.ts';
import type { Logger } from '../server/log.ts';
import { HttpError } from '../lib/http-error.ts';

export interface EdgeRateLimiter extends EdgeLimiter {
  close(): Promise<void>;
}

export function createEdgeLimiter(config: Config, log: Logger, now: () => number = Date.now): EdgeRateLimiter {
  const policies = policiesFromConfig(config);
  const store: RateLimitStore = config.REDIS_URL ? createRedisStore({ url: config.REDIS_URL, log, prefix: config.REDIS_KEY_PREFIX, commandTimeoutMs: config.REDIS_TIMEOUT_MS }) : createMemoryStore();

  return {
    async check(routeClass, clientKey): Promise<LimitOutcome> {
      const at = now();
      const decision = await store.take(clientKey, policies[routeClass], at);
      if (routeClass === 'data') {
        const headers = dataHeaders(decision, at);
        if (decision.allowed) return { headers };
        const wait = decision.retryAfterSeconds ?? 1;
        const detail =
          decision.scope === 'data-day'
            ? `rate limit exceeded: the daily quota is spent; it resets at 00:00 UTC, in ${wait} seconds`
            : `rate limit exceeded: too many requests in a given amount of time; retry after ${wait} seconds`;
        return { headers, refused: new HttpError(429, 'SVC1010', { detail }) };
      }
      const headers = siteHeaders(decision);
      if (decision.allowed) return { headers };
      const wait = decision.retryAfterSeconds ?? 1;
      return {
        headers,
        refused: new HttpError(429, 'rate_limited', {
          detail: `The ${decision.scope ?? 'rate'} limit is used up for this client.`,
          resolution: `Wait ${wait} second${wait === 1 ? '' : 's'} (Retry-After) before retrying.`,
          extensions: { scope: decision.scope, retryAfter: wait },
        }),
      };
    },
    close: () => store.close(),
  };
}
