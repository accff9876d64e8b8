import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/app/config.ts';
import { dataHeaders, headlineWindow, siteHeaders } from '../../../../src/features/ratelimit/headers.ts';
import type { Decision } from '../../../../src/features/ratelimit/limiter.ts';
import { createMemoryStore } from '../../../../src/features/ratelimit/memory-store.ts';
import { policiesFromConfig, type Window } from '../../../../src/features/ratelimit/policies.ts';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const policies = policiesFromConfig(loadConfig({}));

/** The decision on the last of `count` requests one client makes at T0 on a route with `policy`. */
function lastOf(count: number, policy: readonly Window[]): Decision {
  const store = createMemoryStore();
  for (let i = 1; i < count; i++) store.takeNow('c', policy, T0);
  return store.takeNow('c', policy, T0);
}

describe('site headers', () => {
  it('describe the window with the fewest requests left and list every window of the route', () => {
    const d = lastOf(1, policies.chat);
    // chat-minute (9 left) is tighter than site-minute (299) and chat-day (199).
    expect(siteHeaders(d)).toMatchInlineSnapshot(`
      {
        "RateLimit-Limit": "10",
        "RateLimit-Policy": "300;w=60, 10;w=60, 200;w=86400",
        "RateLimit-Remaining": "9",
        "RateLimit-Reset": "6",
      }
    `);
  });

  it('switch to another window once it becomes the tighter one', () => {
    const tight = policiesFromConfig(loadConfig({ RATE_LIMIT_CHAT_DAY: '3', RATE_LIMIT_CHAT_MINUTE: '10' }));
    const d = lastOf(2, tight.chat);
    expect(headlineWindow(d)?.window.name).toBe('chat-day');
    expect(siteHeaders(d)).toMatchObject({ 'RateLimit-Limit': '3', 'RateLimit-Remaining': '1', 'RateLimit-Reset': String(12 * 3_600) });
  });

  it('break a tie in remaining requests towards the window that takes longer to refill', () => {
    const d: Decision = {
      allowed: true,
      windows: [
        { window: { name: 'a-minute', limit: 5, kind: 'bucket', periodSeconds: 60 }, remaining: 2, resetSeconds: 36, resetMs: 36_000 },
        { window: { name: 'a-hour', limit: 5, kind: 'bucket', periodSeconds: 3_600 }, remaining: 2, resetSeconds: 2_160, resetMs: 2_160_000 },
      ],
    };
    expect(headlineWindow(d)?.window.name).toBe('a-hour');
    expect(siteHeaders(d)['RateLimit-Reset']).toBe('2160');
  });

  it('add Retry-After, X-RateLimit-Scope and Remaining 0 to a refusal', () => {
    expect(siteHeaders(lastOf(21, policies.contact))).toMatchInlineSnapshot(`
      {
        "RateLimit-Limit": "20",
        "RateLimit-Policy": "300;w=60, 20;w=3600, 100;w=86400",
        "RateLimit-Remaining": "0",
        "RateLimit-Reset": "3600",
        "Retry-After": "180",
        "X-RateLimit-Scope": "contact-hour",
      }
    `);
  });

  it('are all integers in plain decimal', () => {
    const store = createMemoryStore();
    for (let i = 0; i < 400; i++) {
      const headers = siteHeaders(store.takeNow('c', policies.chat, T0 + i * 37));
      for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After']) {
        if (name in headers) expect(headers[name]).toMatch(/^\d+$/);
      }
    }
  });

  it('are empty for a route without windows', () => {
    expect(siteHeaders({ allowed: true, windows: [] })).toEqual({});
  });
});

describe('data headers', () => {
  it('report the minute window, its epoch-second reset and the daily quota', () => {
    const store = createMemoryStore();
    const now = T0 + 400; // 12:00:00.400
    const d = store.takeNow('c', policies.data, now);
    // One of 60/min used: full again 1 s later, at 12:00:01.400, reported as the next whole second.
    expect(dataHeaders(d, now)).toEqual({
      'X-RateLimit-Remaining': '59',
      'X-RateLimit-Reset': String(T0 / 1000 + 2),
      'X-Daily-Quota-Remaining': '4999',
    });
  });

  it('add Retry-After to a refusal and keep reporting both windows', () => {
    const store = createMemoryStore();
    for (let i = 0; i < 60; i++) store.takeNow('c', policies.data, T0);
    const refused = store.takeNow('c', policies.data, T0);
    expect(dataHeaders(refused, T0)).toEqual({
      'X-RateLimit-Remaining': '0',
      'X-RateLimit-Reset': String(T0 / 1000 + 60),
      'X-Daily-Quota-Remaining': '4940',
      'Retry-After': '1',
    });
  });
});
