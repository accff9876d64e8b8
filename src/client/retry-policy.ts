/** How long the client backs off before retrying a refused or failed request. Pure: the randomness is handed in. */

/** Retry policy for refused and failed requests. */
export interface RetryPolicy {
  /** Attempts per window, the first included (default 5). */
  maxAttempts: number;
  /** Upper bound of the first backoff, in ms (default 500); doubles with each attempt. */
  baseDelayMs: number;
  /** Cap of the exponential bound, in ms (default 30 000). */
  maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 5, baseDelayMs: 500, maxDelayMs: 30_000 };

/**
 * "Full jitter" backoff (AWS Architecture Blog, "Exponential Backoff And Jitter", 2015): a
 * uniform draw from [0, min(cap, base * 2^(attempt - 1))). The randomness keeps clients that
 * failed together from retrying together. `attempt` is the attempt that just failed, from 1.
 */
export function fullJitterDelay(attempt: number, policy: RetryPolicy, random: () => number): number {
  const bound = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * bound);
}

/**
 * The wait before retrying a refused (429) request: at least the server's Retry-After, which
 * says when this request would be admitted, plus full jitter so that concurrent requests
 * refused together do not come back in the same millisecond and split one fresh token between
 * them. Without Retry-After, the jitter alone on an exponential bound.
 */
export function retryDelay(attempt: number, retryAfterMs: number | undefined, policy: RetryPolicy, random: () => number): number {
  return (retryAfterMs ?? 0) + fullJitterDelay(attempt, policy, random);
}
