import { describe, expect, it } from 'vitest';
import { countRequest, currentDayCount, DAY_MS, dayHasQuota, dayLevel, utcDayOf } from '../../../../src/features/ratelimit/utc-day-counter.ts';

const MIDNIGHT = Date.UTC(2025, 2, 30); // a European DST change day: UTC has none
const LIMIT = 3;

describe('UTC day counter', () => {
  it('numbers days from the Unix epoch in UTC', () => {
    expect(utcDayOf(MIDNIGHT)).toBe(MIDNIGHT / DAY_MS);
    expect(utcDayOf(MIDNIGHT - 1)).toBe(MIDNIGHT / DAY_MS - 1);
  });

  it('refuses after the quota until 00:00 UTC, then starts again from zero', () => {
    const evening = MIDNIGHT - 60_000;
    let counter = currentDayCount(undefined, evening);
    for (let i = 0; i < LIMIT; i++) counter = countRequest(counter);
    expect(dayHasQuota(currentDayCount(counter, MIDNIGHT - 1), LIMIT)).toBe(false);
    const next = currentDayCount(counter, MIDNIGHT);
    expect(next).toEqual({ day: utcDayOf(MIDNIGHT), count: 0 });
    expect(dayHasQuota(next, LIMIT)).toBe(true);
  });

  it('reports reset and retry as the time to the next UTC midnight', () => {
    const at = MIDNIGHT + 23 * 3_600_000; // 23:00 UTC
    let counter = currentDayCount(undefined, at);
    counter = countRequest(counter);
    expect(dayLevel(counter, LIMIT, at)).toEqual({ remaining: 2, resetMs: 3_600_000, retryMs: 0 });
    counter = countRequest(countRequest(counter));
    expect(dayLevel(counter, LIMIT, at)).toEqual({ remaining: 0, resetMs: 3_600_000, retryMs: 3_600_000 });
  });

  it('keeps a later day’s count when the clock steps back over midnight', () => {
    const counter = { day: utcDayOf(MIDNIGHT), count: 3 };
    expect(currentDayCount(counter, MIDNIGHT - 1_000)).toBe(counter);
  });
});
