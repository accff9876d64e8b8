/**
 * The in-process store: one record per (client, window) in a bounded LRU (lru-cache), never an
 * unbounded Map, so a flood of distinct clients costs at most `maxKeys` records. Evicting a
 * record forgets that client's usage (it starts again with full windows); only the least
 * recently seen clients are evicted, and the bound is set far above a busy instance's working
 * set. Takes are synchronous JavaScript, hence atomic within the process.
 */
import { LRUCache } from 'lru-cache';
import { evaluate, type WindowRecord } from './decision.ts';
import { refundRequest, utcDayOf } from './utc-day-counter.ts';
import type { Decision, RateLimitStore } from './limiter.ts';
import type { Window } from './policies.ts';

export interface MemoryStoreOptions {
  /** Most (client, window) records kept; default 100 000 (roughly 15 MB at worst). */
  maxKeys?: number;
}

export const DEFAULT_MAX_KEYS = 100_000;

export interface MemoryStore extends RateLimitStore {
  /** The same as `take`, synchronously (the Redis store's fallback and tests use it). */
  takeNow(key: string, windows: readonly Window[], nowMs: number): Decision;
  /** The same as `refund`, synchronously. */
  refundNow(key: string, windows: readonly Window[], decision: Decision): void;
  /** Records currently held (for tests and metrics). */
  readonly size: number;
}

export function createMemoryStore(opts: MemoryStoreOptions = {}): MemoryStore {
  const records = new LRUCache<string, WindowRecord>({ max: opts.maxKeys ?? DEFAULT_MAX_KEYS });

  function takeNow(key: string, windows: readonly Window[], nowMs: number): Decision {
    const now = Math.floor(nowMs);
    // A space cannot occur in a client key (an address or a /64) nor in a window name.
    const ids = windows.map((w) => `${key} ${w.name}`);
    const { decision, next } = evaluate(
      windows,
      ids.map((id) => records.get(id)),
      now,
    );
    if (next) next.forEach((record, i) => records.set(ids[i]!, record)); // ids and next have one entry per window
    return { ...decision, nowMs: now };
  }

  function refundNow(key: string, windows: readonly Window[], decision: Decision): void {
    if (!decision.allowed || decision.nowMs === undefined) return;
    const chargedDay = utcDayOf(decision.nowMs);
    for (const window of windows) {
      if (window.kind !== 'utc-day') continue;
      const id = `${key} ${window.name}`;
      const record = records.get(id);
      if (record !== undefined && 'day' in record) records.set(id, refundRequest(record, chargedDay));
    }
  }

  return {
    takeNow,
    refundNow,
    take: (key, windows, nowMs) => Promise.resolve(takeNow(key, windows, nowMs)),
    refund: (key, windows, decision) => Promise.resolve(refundNow(key, windows, decision)),
    close: () => {
      records.clear();
      return Promise.resolve();
    },
    get size() {
      return records.size;
    },
  };
}
