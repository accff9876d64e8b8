import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createMemoryStore } from '../../../../src/features/ratelimit/memory-store.ts';
import type { Window } from '../../../../src/features/ratelimit/policies.ts';
import { DAY_MS, refundRequest } from '../../../../src/features/ratelimit/utc-day-counter.ts';

const DATA: Window[] = [
  { name: 'data-minute', limit: 100, kind: 'bucket', periodSeconds: 60 },
  { name: 'data-day', limit: 3, kind: 'utc-day', periodSeconds: 86_400 },
];
const T0 = 20_454 * DAY_MS + 1_000;

describe('refundRequest', () => {
  it('gives back one request of the day it was charged, never below zero', () => {
    expect(refundRequest({ day: 7, count: 3 }, 7)).toEqual({ day: 7, count: 2 });
    expect(refundRequest({ day: 7, count: 0 }, 7)).toEqual({ day: 7, count: 0 });
  });

  it('leaves a counter of another day alone (the charge went with its day)', () => {
    expect(refundRequest({ day: 8, count: 3 }, 7)).toEqual({ day: 8, count: 3 });
  });
});

describe('memory store refunds', () => {
  it('lets a client whose requests are all refunded keep its whole daily quota', () => {
    const store = createMemoryStore();
    for (let i = 0; i < 10; i++) {
      const decision = store.takeNow('c', DATA, T0 + i);
      expect(decision.allowed).toBe(true);
      store.refundNow('c', DATA, decision);
    }
    const after = store.takeNow('c', DATA, T0 + 10);
    expect(after.windows[1]!.remaining).toBe(2);
    // The minute bucket kept every charge: 11 of 100 spent.
    expect(after.windows[0]!.remaining).toBe(89);
  });

  it('refunds nothing for a refused request (it was charged nothing)', () => {
    const store = createMemoryStore();
    for (let i = 0; i < 3; i++) store.takeNow('c', DATA, T0);
    const refused = store.takeNow('c', DATA, T0);
    expect(refused.allowed).toBe(false);
    store.refundNow('c', DATA, refused);
    expect(store.takeNow('c', DATA, T0).allowed).toBe(false);
  });

  it('does not credit the next day with a refund that arrives after midnight', () => {
    const store = createMemoryStore();
    const late = T0 + DAY_MS - 1_001;
    const decision = store.takeNow('c', DATA, late);
    store.takeNow('c', DATA, late + 2_000); // the first request of the next day
    store.refundNow('c', DATA, decision);
    expect(store.takeNow('c', DATA, late + 3_000).windows[1]!.remaining).toBe(1);
  });

  it('never admits more than the quota, whatever the order of takes and refunds', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 40 }), (refundEach) => {
        const store = createMemoryStore({ maxKeys: 10 });
        let notRefunded = 0;
        for (const refund of refundEach) {
          const decision = store.takeNow('c', DATA, T0);
          if (!decision.allowed) continue;
          if (refund) store.refundNow('c', DATA, decision);
          else notRefunded++;
        }
        expect(notRefunded).toBeLessThanOrEqual(3);
      }),
    );
  });
});
