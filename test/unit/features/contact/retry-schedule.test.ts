import { describe, expect, it } from 'vitest';
import { DEFAULT_SCHEDULE, JITTER, longestRoundMs, nextDelayMs, parseDuration, retrySchedule, ScheduleText } from '../../../../src/features/contact/retry-schedule.ts';

/** The largest value Math.random can return. */
const almostOne = 1 - Number.EPSILON;

describe('the delivery retry schedule', () => {
  it('retries after exactly the documented delays when the jitter draws 0: 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h', () => {
    const delays = Array.from({ length: 9 }, (_, i) => nextDelayMs(i + 1, DEFAULT_SCHEDULE, () => 0));
    expect(delays).toEqual([30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000]);
  });

  it('gives up after the tenth attempt, about a day after the first', () => {
    expect(DEFAULT_SCHEDULE.attempts).toBe(10);
    expect(nextDelayMs(10, DEFAULT_SCHEDULE, () => 0)).toBeUndefined();
    const total = longestRoundMs({ ...DEFAULT_SCHEDULE });
    expect(total).toBe(Math.round(85_350_000 * (1 + JITTER)));
    expect(nextDelayMs(9, DEFAULT_SCHEDULE, () => 0)).toBe(28_800_000);
  });

  it('only ever lengthens a delay, by at most 10 %, never shortens it', () => {
    for (let failed = 1; failed < 10; failed += 1) {
      const base = nextDelayMs(failed, DEFAULT_SCHEDULE, () => 0)!;
      for (const draw of [0, 0.3, 0.5, almostOne, Math.random()]) {
        const delay = nextDelayMs(failed, DEFAULT_SCHEDULE, () => draw)!;
        expect(delay).toBeGreaterThanOrEqual(base);
        expect(delay).toBeLessThanOrEqual(Math.round(base * 1.1));
      }
    }
  });

  it('repeats the last delay when the attempts need more, and stops early when they need fewer', () => {
    const schedule = retrySchedule([100, 200], 5);
    expect([1, 2, 3, 4, 5].map((n) => nextDelayMs(n, schedule, () => 0))).toEqual([100, 200, 200, 200, undefined]);
    expect(retrySchedule([100, 200], undefined)).toEqual({ attempts: 3, delaysMs: [100, 200] });
    expect(nextDelayMs(1, retrySchedule([100, 200], 1), () => 0)).toBeUndefined();
    expect(retrySchedule(undefined, undefined)).toEqual(DEFAULT_SCHEDULE);
  });

  it('reads durations in ms, s, m and h', () => {
    expect(['500ms', '30s', '2m', '1h', '0s'].map(parseDuration)).toEqual([500, 30_000, 120_000, 3_600_000, 0]);
    expect(ScheduleText.parse('1s, 2m,3h')).toEqual([1_000, 120_000, 10_800_000]);
  });

  it.each(['', '30', '1.5s', '-1s', '1d', '30s,,1m', '169h', 'soon'])('refuses the schedule %j with the expected form', (text) => {
    const parsed = ScheduleText.safeParse(text);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toContain('comma-separated durations');
  });
});
