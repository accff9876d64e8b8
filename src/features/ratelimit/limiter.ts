/**
 * The rate limiter's contract: a store takes one request's worth from every window of a route
 * for a client, atomically, and answers with a `Decision` the edge turns into headers.
 *
 * Implementations: `createMemoryStore` (in-process, bounded LRU; the default) and
 * `createRedisStore` (shared by every instance; one Lua round trip per check; falls back to an
 * in-process store while Redis is unreachable).
 */
import type { Window } from './policies.ts';

/** One window's figures as a store computes them, before rounding for headers. */
export interface WindowLevel {
  /** Whole requests left. */
  remaining: number;
  /** Milliseconds until the window is full again (until 00:00 UTC for a day counter). */
  resetMs: number;
  /** Milliseconds until one request fits; 0 when one does now. */
  retryMs: number;
}

export interface WindowState {
  window: Window;
  /** Whole requests this window would still admit, after this request. */
  remaining: number;
  /** Seconds until this window is full again (rounded up). For a UTC day: until 00:00 UTC. */
  resetSeconds: number;
  /** The same in milliseconds, unrounded, for headers that report an absolute time. */
  resetMs: number;
}

export interface Decision {
  /** True when every window had a request to spare; all were then charged one. */
  allowed: boolean;
  /** State of each window of the route, in policy order, AFTER this request (nothing is consumed when refused). */
  windows: WindowState[];
  /** Name of the exhausted window when refused (the one that keeps the request out longest). */
  scope?: string;
  /** Whole seconds, at least 1, until this request would be admitted, when refused. */
  retryAfterSeconds?: number;
  /** The store's clock at the take, epoch ms (a refund finds the UTC day it charged by it). */
  nowMs?: number;
  /** True when Redis answered (not the in-process fallback): a refund goes to the same place. */
  shared?: boolean;
}

export interface RateLimitStore {
  /** True while a shared store cannot reach its backend and answers from memory (redis-store.server.ts). */
  readonly degraded?: boolean;
  /**
   * Charge one request to every window, or to none if any is empty. `key` is the client
   * identity (`clientKeyOf`); `nowMs` the caller's clock (the Redis store may use the server's,
   * see its options). Never rejects: a store that cannot reach its backend answers from memory.
   */
  take(key: string, windows: Window[], nowMs: number): Promise<Decision>;
  /**
   * Give back the unit that the admitted `decision` charged to each UTC-day window in `windows`
   * (a 304 Not Modified does not spend the daily quota, as on GitHub's API). A counter already reset at
   * midnight is left alone; a count never goes below 0. Never rejects.
   */
  refund(key: string, windows: readonly Window[], decision: Decision): Promise<void>;
  /** Release connections; later takes are answered in-process. */
  close(): Promise<void>;
}
