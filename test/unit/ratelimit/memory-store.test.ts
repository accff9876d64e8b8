import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { createMemoryStore } from '../../../src/features/ratelimit/memory-store.ts';
import { policiesFromConfig, type Window } from '../../../src/features/ratelimit/policies.ts';

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

  it('admits a route with no windows without storing anything', async () => {
    const store = createMemoryStore();
    await expect(store.take('c', [], T0)).resolves.toEqual({ allowed: true, windows: [], nowMs: T0 });
    expect(store.size).toBe(0);
  });
});
