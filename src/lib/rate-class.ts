/**
 * The rate classes: which set of windows a request spends. The edge's route table assigns a
 * class to each route and method (src/server/routes.ts); the rate-limit feature defines each
 * class's windows (src/features/ratelimit/policies.ts), and the OpenAPI builders
 * (src/lib/openapi/) describe them.
 */
export type RateClass = 'site' | 'chat' | 'contact' | 'data' | 'page' | 'sign-in';

/** One window of a rate class. */
export interface Window {
  /** e.g. 'site-minute', 'chat-day'; reported in X-RateLimit-Scope and part of the store key. */
  name: string;
  /** Requests per period (the bucket's capacity, or the day's quota). */
  limit: number;
  /**
   * 'bucket': token bucket, capacity = limit, refilled continuously at limit per periodSeconds.
   * 'utc-day': a counter of the current UTC day, reset at 00:00 UTC.
   */
  kind: 'bucket' | 'utc-day';
  /** Length of the window: 60, 3600 or 86400. */
  periodSeconds: number;
}
