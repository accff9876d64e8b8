/**
 * How long the outbox waits before retrying a failed webhook delivery: exponential backoff with
 * "equal jitter" (half the step fixed, half random; see the AWS Architecture Blog, "Exponential
 * Backoff And Jitter", 2015). The fixed half guarantees progress between attempts; the random
 * half spreads retries of many submissions, and of several instances, after a webhook outage.
 * There is no last attempt: a submission is never dropped, it is retried at the cap until the
 * webhook takes it.
 */

export interface BackoffPolicy {
  /** Step after the first failure. */
  baseMs: number;
  /** Largest step. */
  capMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { baseMs: 30_000, capMs: 60 * 60_000 };

/**
 * Delay before the next attempt after `failures` failed ones (1 for the first failure).
 * `random` returns a number in [0, 1), like Math.random, which it defaults to.
 */
export function retryDelayMs(failures: number, random: () => number = Math.random, policy: BackoffPolicy = DEFAULT_BACKOFF): number {
  // 2^30 already exceeds any sane cap; bounding the exponent keeps the arithmetic finite.
  const exponent = Math.min(Math.max(failures, 1) - 1, 30);
  const step = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  return Math.round(step / 2 + random() * (step / 2));
}
