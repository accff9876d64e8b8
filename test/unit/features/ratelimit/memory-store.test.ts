import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/app/config.ts';
import { createMemoryStore } from '../../../../src/features/ratelimit/memory-store.ts';
import { policiesFromConfig, type Window } from '../../../../src/features/ratelimit/policies.ts';
import { evaluate, type WindowRecord } from '../../../../src/features/ratelimit/decision.ts';

const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const MIDNIGHT = Date.UTC(2025, 0, 16);
const policies = policiesFromConfig(loadConfig({}));

function remainingOf(windows: { window: Window; remaining: number }[]): Record<string, number> {
  return Object.fromEntries(windows.map((w) => [w.window.name, w.remaining]));
}

describe('memory store', () => {
  it('charges one request to every window of the route', () => {
    const store = createMemoryStore();
    const d = store.takeNow('198.51.100.7', policies.chat, T0);
    expect(d.allowed).toBe(true);
    expect(remainingOf(d.windows)).toEqual({ 'site-minute': 299, 'chat-minute': 9, 'chat-day': 199 });
  });

  it('refuses when any window is empty and then charges none of them', () => {
    const store = createMemoryStore();
    for (let i = 0; i < 10; i++) expect(store.takeNow('c', policies.chat, T0).allowed).toBe(true);
    const refused = store.takeNow('c', policies.chat, T0);
    expect(refused.allowed).toBe(false);
    expect(refused.scope).toBe('chat-minute');
    expect(remainingOf(refused.windows)).toEqual({ 'site-minute': 290, 'chat-minute': 0, 'chat-day': 190 });
    // Refused again: still nothing consumed anywhere.
    const again = store.takeNow('c', policies.chat, T0);
    expect(remainingOf(again.windows)).toEqual({ 'site-minute': 290, 'chat-minute': 0, 'chat-day': 190 });
    expect(remainingOf(store.takeNow('c', policies.site, T0).windows)).toEqual({ 'site-minute': 289 });
  });

  it('sets Retry-After to the whole seconds until one token is back', () => {
    const store = createMemoryStore();
    for (let i = 0; i < 10; i++) store.takeNow('c', policies.chat, T0);
    // 10 per minute: one token every 6 s.
    expect(store.takeNow('c', policies.chat, T0).retryAfterSeconds).toBe(6);
    expect(store.takeNow('c', policies.chat, T0 + 5_500).retryAfterSeconds).toBe(1);
    expect(store.takeNow('c', policies.chat, T0 + 5_999).retryAfterSeconds).toBe(1);
    expect(store.takeNow('c', policies.chat, T0 + 6_000).allowed).toBe(true);
  });

  it('sets Retry-After to the seconds until 00:00 UTC when the daily quota is spent', () => {
    const store = createMemoryStore();
    const data: Window[] = [
      { name: 'data-minute', limit: 60, kind: 'bucket', periodSeconds: 60 },
      { name: 'data-day', limit: 2, kind: 'utc-day', periodSeconds: 86_400 },
    ];
    const late = MIDNIGHT - 90_500; // 23:58:29.500 UTC
    store.takeNow('c', data, late);
    store.takeNow('c', data, late);
    const refused = store.takeNow('c', data, late);
    expect(refused).toMatchObject({ allowed: false, scope: 'data-day', retryAfterSeconds: 91 });
    expect(remainingOf(refused.windows)).toEqual({ 'data-minute': 58, 'data-day': 0 });
    expect(store.takeNow('c', data, MIDNIGHT - 1).allowed).toBe(false);
    const newDay = store.takeNow('c', data, MIDNIGHT);
    expect(newDay.allowed).toBe(true);
    expect(remainingOf(newDay.windows)).toEqual({ 'data-minute': 59, 'data-day': 1 });
    expect(newDay.windows[1]?.resetSeconds).toBe(86_400);
  });

  it('names the window that keeps the request out longest when several are empty', () => {
    const store = createMemoryStore();
    const windows: Window[] = [
      { name: 'tiny-minute', limit: 1, kind: 'bucket', periodSeconds: 60 },
      { name: 'tiny-day', limit: 1, kind: 'utc-day', periodSeconds: 86_400 },
    ];
    store.takeNow('c', windows, T0);
    const refused = store.takeNow('c', windows, T0);
    expect(refused.scope).toBe('tiny-day');
    expect(refused.retryAfterSeconds).toBe(12 * 3_600);
  });

  it('shares site-minute between every site route of one client and keeps clients apart', () => {
    const store = createMemoryStore();
    store.takeNow('a', policies.site, T0);
    store.takeNow('a', policies.contact, T0);
    const chat = store.takeNow('a', policies.chat, T0);
    expect(remainingOf(chat.windows)['site-minute']).toBe(297);
    expect(remainingOf(store.takeNow('b', policies.site, T0).windows)['site-minute']).toBe(299);
    // The data interface has its own windows.
    expect(remainingOf(store.takeNow('a', policies.data, T0).windows)).toEqual({ 'data-minute': 59, 'data-day': 4_999 });
  });

  it('reports the state after the request: reset grows with use', () => {
    const store = createMemoryStore();
    const first = store.takeNow('c', policies.site, T0);
    expect(first.windows[0]).toMatchObject({ remaining: 299, resetSeconds: 1, resetMs: 200 });
    store.takeNow('c', policies.site, T0);
    const third = store.takeNow('c', policies.site, T0 + 50);
    expect(third.windows[0]).toMatchObject({ remaining: 297, resetSeconds: 1, resetMs: 550 });
  });

  it('holds at most maxKeys records, evicting the least recently seen client', () => {
    const store = createMemoryStore({ maxKeys: 4 });
    for (let i = 0; i < 50; i++) store.takeNow(`client-${i}`, policies.site, T0);
    expect(store.size).toBe(4);
    // An evicted client starts again with a full window.
    expect(remainingOf(store.takeNow('client-0', policies.site, T0).windows)['site-minute']).toBe(299);
    expect(remainingOf(store.takeNow('client-49', policies.site, T0).windows)['site-minute']).toBe(298);
  });

  it('keeps its memory fixed whatever the number of clients, and stays exact for the recent ones', () => {
    const store = createMemoryStore({ maxKeys: 10_000 });
    const bytes = store.bytes;
    // About 40 bytes a record, allocated once.
    expect(bytes).toBeLessThanOrEqual(10_000 * 40);
    for (let i = 0; i < 200_000; i++) store.takeNow(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, policies.data, T0 + i);
    expect(store.bytes).toBe(bytes);
    expect(store.size).toBeLessThanOrEqual(10_000);
    // The table is full, not leaking: every slot holds a record.
    expect(store.size).toBe(10_000);
    // The last client seen is remembered (one request spent from each data window).
    const last = 199_999;
    const again = store.takeNow(`10.${(last >> 16) & 255}.${(last >> 8) & 255}.${last & 255}`, policies.data, T0 + 200_000);
    expect(remainingOf(again.windows)).toEqual({ 'data-minute': 58, 'data-day': 4_998 });
  });

  it('refuses a table of no records', () => {
    expect(() => createMemoryStore({ maxKeys: 0 })).toThrow(RangeError);
  });

  it('decides like the pure rule over a plain map while nothing is evicted', () => {
    const windows: Window[] = [
      { name: 'b-minute', limit: 3, kind: 'bucket', periodSeconds: 60 },
      { name: 'b-day', limit: 5, kind: 'utc-day', periodSeconds: 86_400 },
    ];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 90_000 }), fc.boolean()), { maxLength: 200 }), (steps) => {
        const store = createMemoryStore({ maxKeys: 1_000 });
        const model = new Map<string, WindowRecord>();
        let now = MIDNIGHT - 100_000;
        for (const [client, advance, refund] of steps) {
          now += advance;
          const key = `client-${client}`;
          const ids = windows.map((w) => `${key} ${w.name}`);
          const expected = evaluate(windows, ids.map((id) => model.get(id)), now);
          if (expected.next) expected.next.forEach((record, i) => model.set(ids[i]!, record));
          const actual = store.takeNow(key, windows, now);
          expect(actual.allowed).toBe(expected.decision.allowed);
          expect(remainingOf(actual.windows)).toEqual(remainingOf(expected.decision.windows));
          if (refund && actual.allowed) {
            store.refundNow(key, windows, actual);
            const day = model.get(ids[1]!) as { day: number; count: number };
            if (day.day === Math.floor(now / 86_400_000) && day.count > 0) model.set(ids[1]!, { day: day.day, count: day.count - 1 });
          }
        }
      }),
    );
  });

  it('admits a route with no windows without storing anything', async () => {
    const store = createMemoryStore();
    await expect(store.take('c', [], T0)).resolves.toEqual({ allowed: true, windows: [], nowMs: T0 });
    expect(store.size).toBe(0);
  });
});
