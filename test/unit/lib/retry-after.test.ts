import { describe, expect, it } from 'vitest';
import { describeWait, retryAfterSeconds } from '../../../src/lib/retry-after.ts';

describe('Retry-After in the browser', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-03T10:00:00Z');
    expect(retryAfterSeconds('42', now)).toBe(42);
    expect(retryAfterSeconds('Tue, 03 Nov 2026 10:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds(null, now)).toBe(60);
    expect(retryAfterSeconds('soon', now)).toBe(60);
  });

  it('tells the wait in words', () => {
    expect([1, 45, 60, 61, 3600, 7201].map(describeWait)).toEqual(['1 second', '45 seconds', '1 minute', '2 minutes', '1 hour', '3 hours']);
  });
});
