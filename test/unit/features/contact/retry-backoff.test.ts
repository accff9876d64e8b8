import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, retryDelayMs } from '../../../../src/features/contact/retry-backoff.ts';

/** The largest value Math.random can return. */
const almostOne = 1 - Number.EPSILON;

describe('retryDelayMs', () => {
  it('doubles the step after each failure: 30 s, 60 s, 120 s, with half of it jittered', () => {
    expect([1, 2, 3].map((n) => retryDelayMs(n, () => 0))).toEqual([15_000, 30_000, 60_000]);
    expect([1, 2, 3].map((n) => retryDelayMs(n, () => almostOne))).toEqual([30_000, 60_000, 120_000]);
  });

  it('never waits longer than an hour, however many failures', () => {
    expect(retryDelayMs(8, () => almostOne)).toBe(DEFAULT_BACKOFF.capMs);
    expect(retryDelayMs(1_000, () => almostOne)).toBe(60 * 60_000);
    expect(retryDelayMs(1_000, () => 0)).toBe(30 * 60_000);
  });

  it('stays within its bounds for any random draw', () => {
    for (let failures = 1; failures < 20; failures += 1) {
      const delay = retryDelayMs(failures);
      const step = Math.min(DEFAULT_BACKOFF.capMs, DEFAULT_BACKOFF.baseMs * 2 ** (failures - 1));
      expect(delay).toBeGreaterThanOrEqual(step / 2);
      expect(delay).toBeLessThanOrEqual(step);
    }
  });

  it('takes its policy as an argument', () => {
    expect(retryDelayMs(3, () => 0, { baseMs: 100, capMs: 250 })).toBe(125);
  });
});
