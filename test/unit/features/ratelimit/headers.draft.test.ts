import { describe, expect, it } from 'vitest';
import { dataHeaders, draftHeaders, refundedDecision, siteHeaders } from '../../../../src/features/ratelimit/headers.ts';
import { createMemoryStore } from '../../../../src/features/ratelimit/memory-store.ts';
import type { Window } from '../../../../src/features/ratelimit/policies.ts';
import { DAY_MS } from '../../../../src/features/ratelimit/utc-day-counter.ts';

const DATA: Window[] = [
  { name: 'data-minute', limit: 60, kind: 'bucket', periodSeconds: 60 },
  { name: 'data-day', limit: 5000, kind: 'utc-day', periodSeconds: 86_400 },
];
/** 2026-01-01 12:00:00 UTC: 43,200 s before midnight. */
const NOON = 20_454 * DAY_MS + DAY_MS / 2;

describe('draftHeaders (draft-ietf-httpapi-ratelimit-headers-10)', () => {
  it('lists every window as a quoted policy with q and w, and its live r and t', () => {
    const decision = createMemoryStore().takeNow('198.51.100.7', DATA, NOON);
    expect(draftHeaders(decision)).toEqual({
      'RateLimit-Policy': '"data-minute";q=60;w=60, "data-day";q=5000;w=86400',
      RateLimit: '"data-minute";r=59;t=1, "data-day";r=4999;t=43200',
    });
  });

  it('reports r=0 for the exhausted window of a refused request and charges nothing', () => {
    const store = createMemoryStore();
    const tight: Window[] = [DATA[0]!, { ...DATA[1]!, limit: 1 }];
    store.takeNow('c', tight, NOON);
    const refused = store.takeNow('c', tight, NOON);
    expect(refused.allowed).toBe(false);
    expect(draftHeaders(refused)['RateLimit']).toBe('"data-minute";r=59;t=1, "data-day";r=0;t=43200');
  });

  it('leaves the older site fields as they were', () => {
    const decision = createMemoryStore().takeNow('c', [{ name: 'site-minute', limit: 300, kind: 'bucket', periodSeconds: 60 }], NOON);
    expect(siteHeaders(decision)).toEqual({ 'RateLimit-Limit': '300', 'RateLimit-Remaining': '299', 'RateLimit-Reset': '1', 'RateLimit-Policy': '300;w=60' });
    expect(draftHeaders(decision)['RateLimit-Policy']).toBe('"site-minute";q=300;w=60');
  });
});

describe('refundedDecision (a 304 does not spend the daily quota)', () => {
  it('adds the day unit back and keeps the minute charge', () => {
    const decision = createMemoryStore().takeNow('c', DATA, NOON);
    const refunded = refundedDecision(decision);
    expect(dataHeaders(refunded, NOON)['X-Daily-Quota-Remaining']).toBe('5000');
    expect(dataHeaders(refunded, NOON)['X-RateLimit-Remaining']).toBe('59');
    expect(dataHeaders(decision, NOON)['X-Daily-Quota-Remaining']).toBe('4999');
  });

  it('never reports more than the limit', () => {
    const decision = createMemoryStore().takeNow('c', DATA, NOON);
    expect(refundedDecision(refundedDecision(decision)).windows[1]!.remaining).toBe(5000);
  });
});
