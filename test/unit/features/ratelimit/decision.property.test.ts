import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { evaluate, type WindowRecord } from '../../../../src/features/ratelimit/decision.ts';
import type { Window } from '../../../../src/features/ratelimit/policies.ts';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

const bucketWindow = fc.record({
  name: fc.constant('w'),
  limit: fc.integer({ min: 1, max: 40 }),
  kind: fc.constant('bucket' as const),
  periodSeconds: fc.constantFrom(1, 7, 60, 3_600),
});

/** Request times: non-decreasing offsets from T0, with bursts (0 gaps) and idle stretches. */
const requestTimes = fc
  .array(fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 500 }), fc.integer({ min: 0, max: 120_000 })), { minLength: 1, maxLength: 250 })
  .map((gaps) => {
    let t = T0;
    return gaps.map((gap) => (t += gap));
  });

/** Run the requests through the pure multi-window rule; returns the admitted times. */
function admittedTimes(windows: Window[], times: number[]): number[] {
  let records: (WindowRecord | undefined)[] = windows.map(() => undefined);
  const admitted: number[] = [];
  for (const t of times) {
    const { decision, next } = evaluate(windows, records, t);
    if (next) records = next;
    if (decision.allowed) admitted.push(t);
  }
  return admitted;
}

describe('token bucket (property)', () => {
  it('never admits more than limit + rate × elapsed over any interval of any request sequence', () => {
    fc.assert(
      fc.property(bucketWindow, requestTimes, (window, times) => {
        const admitted = admittedTimes([window], times);
        const periodMs = window.periodSeconds * 1000;
        // Every interval [admitted[i], admitted[j]] holds j - i + 1 admissions. Integer form of
        // count <= limit + limit * elapsed / periodMs, so no floating point decides the test.
        for (let i = 0; i < admitted.length; i++) {
          for (let j = i; j < admitted.length; j++) {
            const count = j - i + 1;
            const elapsed = admitted[j]! - admitted[i]!; // i, j < length
            expect(count * periodMs).toBeLessThanOrEqual(window.limit * periodMs + window.limit * elapsed);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('admits the first limit requests of a burst: the bound is also reached', () => {
    fc.assert(
      fc.property(bucketWindow, fc.integer({ min: 0, max: 100 }), (window, extra) => {
        const times = Array.from({ length: window.limit + extra }, () => T0);
        expect(admittedTimes([window], times)).toHaveLength(window.limit);
      }),
    );
  });

  it('tells the truth in Retry-After: waiting that long is enough to be admitted', () => {
    const windows = fc.array(bucketWindow, { minLength: 1, maxLength: 3 }).map((ws) => ws.map((w, i) => ({ ...w, name: `w${i}` })));
    const day = fc.record({ name: fc.constant('day'), limit: fc.integer({ min: 1, max: 40 }), kind: fc.constant('utc-day' as const), periodSeconds: fc.constant(86_400) });
    fc.assert(
      fc.property(windows, fc.option(day, { nil: undefined }), requestTimes, (buckets, daily, times) => {
        const all: Window[] = daily ? [...buckets, daily] : buckets;
        let records: (WindowRecord | undefined)[] = all.map(() => undefined);
        for (const t of times) {
          const { decision, next } = evaluate(all, records, t);
          if (next) {
            records = next;
            continue;
          }
          expect(decision.retryAfterSeconds).toBeGreaterThanOrEqual(1);
          expect(all.map((w) => w.name)).toContain(decision.scope);
          // Refusal charged nothing, and at the advertised time the same request gets in.
          expect(evaluate(all, records, t + decision.retryAfterSeconds! * 1000).decision.allowed).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });
});
