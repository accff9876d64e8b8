/** The rate-limit feature's public surface: policies, client identity, stores, headers. */
export { policiesFromConfig } from './policies.ts';
export type { RateLimitConfig, RateClass, Window } from './policies.ts';
export { clientKeyOf, isTrustedProxy } from './client-key.ts';
export type { Decision, RateLimitStore, WindowState } from './limiter.ts';
export { createMemoryStore } from './memory-store.ts';
export type { MemoryStore, MemoryStoreOptions } from './memory-store.ts';
export { createRedisStore } from './redis-store.server.ts';
export type { RedisStore, RedisStoreOptions } from './redis-store.server.ts';
export { dataHeaders, draftHeaders, headlineWindow, refundedDecision, siteHeaders } from './headers.ts';
export { DEFAULT_IPV6_PREFIX } from './client-key.ts';
