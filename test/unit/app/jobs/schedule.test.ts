import { describe, expect, it } from 'vitest';
import { tickDays } from '../../../../src/app/jobs/schedule.ts';

describe('stats schedule', () => {
  it('has a tick materialize the last complete day and re-materialize the two before it', () => {
    expect(tickDays(Date.UTC(2026, 2, 1, 0, 5))).toEqual({ from: '2026-02-26', to: '2026-02-28' });
    expect(tickDays(Date.UTC(2028, 2, 1, 0, 5))).toEqual({ from: '2028-02-27', to: '2028-02-29' });
    expect(tickDays(Date.UTC(2026, 0, 1, 23, 59))).toEqual({ from: '2025-12-29', to: '2025-12-31' });
  });
});
