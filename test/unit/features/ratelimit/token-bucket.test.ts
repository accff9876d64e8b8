import { describe, expect, it } from 'vitest';
import { bucketHasToken, bucketLevel, refillBucket, takeToken, type TokenBucketState } from '../../../../src/features/ratelimit/token-bucket.ts';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
// 300 per minute: one token every 200 ms.
const LIMIT = 300;
const PERIOD_MS = 60_000;

/** Take `n` tokens at `nowMs`, as many as the bucket allows; returns the bucket and how many were taken. */
function drain(state: TokenBucketState | undefined, n: number, nowMs: number): { state: TokenBucketState; taken: number } {
  let bucket = refillBucket(state, LIMIT, PERIOD_MS, nowMs);
  let taken = 0;
  while (taken < n && bucketHasToken(bucket, PERIOD_MS)) {
    bucket = takeToken(bucket, PERIOD_MS);
    taken++;
  }
  return { state: bucket, taken };
}

describe('token bucket', () => {
  it('starts full: a client never seen has the whole limit', () => {
    const bucket = refillBucket(undefined, LIMIT, PERIOD_MS, T0);
    expect(bucketLevel(bucket, LIMIT, PERIOD_MS, T0)).toEqual({ remaining: 300, resetMs: 0, retryMs: 0 });
  });

  it('admits exactly the capacity in a burst, then nothing', () => {
    const { state, taken } = drain(undefined, 1_000, T0);
    expect(taken).toBe(300);
    expect(bucketHasToken(state, PERIOD_MS)).toBe(false);
    expect(bucketLevel(state, LIMIT, PERIOD_MS, T0)).toEqual({ remaining: 0, resetMs: 60_000, retryMs: 200 });
  });

  it('refills one token per period/limit, continuously, and not a millisecond early', () => {
    const empty = drain(undefined, 300, T0).state;
    expect(bucketHasToken(refillBucket(empty, LIMIT, PERIOD_MS, T0 + 199), PERIOD_MS)).toBe(false);
    const oneLater = refillBucket(empty, LIMIT, PERIOD_MS, T0 + 200);
    expect(bucketLevel(oneLater, LIMIT, PERIOD_MS, T0 + 200).remaining).toBe(1);
    expect(bucketLevel(refillBucket(empty, LIMIT, PERIOD_MS, T0 + 30_000), LIMIT, PERIOD_MS, T0 + 30_000).remaining).toBe(150);
  });

  it('never holds more than its capacity, however long it idles', () => {
    const used = drain(undefined, 10, T0).state;
    const later = refillBucket(used, LIMIT, PERIOD_MS, T0 + 24 * 3_600_000);
    expect(bucketLevel(later, LIMIT, PERIOD_MS, T0 + 24 * 3_600_000)).toEqual({ remaining: 300, resetMs: 0, retryMs: 0 });
  });

  it('reports the time until full and until the next token after partial use', () => {
    const { state } = drain(undefined, 3, T0);
    // 3 tokens short of full at 200 ms each; one is still available.
    expect(bucketLevel(state, LIMIT, PERIOD_MS, T0)).toEqual({ remaining: 297, resetMs: 600, retryMs: 0 });
    const halfway = refillBucket(state, LIMIT, PERIOD_MS, T0 + 100);
    expect(bucketLevel(halfway, LIMIT, PERIOD_MS, T0 + 100)).toEqual({ remaining: 297, resetMs: 500, retryMs: 0 });
  });

  it('computes fractional refill rates exactly (7 per minute is not a whole number of ms)', () => {
    const limit = 7;
    let bucket = refillBucket(undefined, limit, PERIOD_MS, T0);
    for (let i = 0; i < 7; i++) bucket = takeToken(bucket, PERIOD_MS);
    // 60 000 / 7 = 8 571.43 ms per token: not there at 8 571, there at 8 572.
    expect(bucketHasToken(refillBucket(bucket, limit, PERIOD_MS, T0 + 8_571), PERIOD_MS)).toBe(false);
    expect(bucketHasToken(refillBucket(bucket, limit, PERIOD_MS, T0 + 8_572), PERIOD_MS)).toBe(true);
    expect(bucketLevel(bucket, limit, PERIOD_MS, T0).retryMs).toBe(8_572);
  });

  it('credits nothing when the clock steps backwards, and keeps the later timestamp', () => {
    const { state } = drain(undefined, 300, T0);
    const earlier = refillBucket(state, LIMIT, PERIOD_MS, T0 - 5_000);
    expect(earlier).toEqual({ units: 0, updatedMs: T0 });
    // Back at T0 + 200 only the 200 ms since T0 count: one token, not 26.
    expect(bucketLevel(refillBucket(earlier, LIMIT, PERIOD_MS, T0 + 200), LIMIT, PERIOD_MS, T0 + 200).remaining).toBe(1);
    // Seen from the earlier clock the waits include the 5 s gap.
    expect(bucketLevel(earlier, LIMIT, PERIOD_MS, T0 - 5_000)).toEqual({ remaining: 0, resetMs: 65_000, retryMs: 5_200 });
  });
});
