/**
 * The in-process store: one record per (client, window) in a fixed table of typed arrays,
 * allocated once. A flood of distinct clients therefore costs no memory beyond the table (about
 * 30 bytes a record) and makes no garbage: the JavaScript objects of an LRU of strings cost
 * ~200 bytes a record, grew the process by ~85 MB under a flood of a million client addresses,
 * and the allocator kept that memory after the flood.
 *
 * The table is set-associative, like a CPU cache: a record's hash picks a set of `WAYS` slots,
 * and a new record in a full set replaces the set's least recently seen one. Evicting a record
 * forgets that client's usage (it starts again with full windows), exactly as the LRU did; the
 * bound is set far above a busy instance's working set. Records are found by a 53-bit
 * fingerprint of the client key and the window name rather than the strings themselves: two
 * live records would need the same fingerprint in the same set to share a budget, odds of about
 * one in 2^50 per pair. Takes are synchronous JavaScript, hence atomic within the process.
 */
import { evaluate, type WindowRecord } from './decision.ts';
import type { TokenBucketState } from './token-bucket.ts';
import { refundRequest, utcDayOf, type UtcDayCounterState } from './utc-day-counter.ts';
import type { Decision, RateLimitStore } from './limiter.ts';
import type { Window } from './policies.ts';

export interface MemoryStoreOptions {
  /** Most (client, window) records kept; default 100 000 (about 3 MB, allocated once). */
  maxKeys?: number;
}

export const DEFAULT_MAX_KEYS = 100_000;

/** Slots per set: eight keeps eviction close to a true LRU at a scan of eight slots per lookup. */
const WAYS = 8;

export interface MemoryStore extends RateLimitStore {
  /** The same as `take`, synchronously (the Redis store's fallback and tests use it). */
  takeNow(key: string, windows: readonly Window[], nowMs: number): Decision;
  /** The same as `refund`, synchronously. */
  refundNow(key: string, windows: readonly Window[], decision: Decision): void;
  /** Records currently held (for tests and metrics). */
  readonly size: number;
  /** Bytes the table holds, whatever its use (for tests and the benchmark). */
  readonly bytes: number;
}

/**
 * A 53-bit string hash (cyrb53, public domain, by bryc): two 32-bit lanes mixed with Math.imul.
 * `seed` chains a second string onto the first without concatenating them.
 */
function hash53(text: string, seed = 0): number {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** The fixed table: parallel typed arrays, one entry per slot. */
class RecordTable {
  readonly sets: number;
  readonly ways: number;
  /** Fingerprint, split in two lanes; 0/0 marks an empty slot (fingerprints are never 0). */
  readonly #high: Uint32Array;
  readonly #low: Uint32Array;
  /** The record: a bucket's units and updatedMs, or a day counter's day and count. */
  readonly #first: Float64Array;
  readonly #second: Float64Array;
  /** A counter of uses, for the least recently seen slot of a set. */
  readonly #seen: Float64Array;
  #clock = 0;
  size = 0;

  constructor(maxKeys: number) {
    this.ways = Math.min(WAYS, maxKeys);
    this.sets = Math.ceil(maxKeys / this.ways);
    const slots = this.sets * this.ways;
    this.#high = new Uint32Array(slots);
    this.#low = new Uint32Array(slots);
    this.#first = new Float64Array(slots);
    this.#second = new Float64Array(slots);
    this.#seen = new Float64Array(slots);
  }

  get bytes(): number {
    return this.#high.byteLength + this.#low.byteLength + this.#first.byteLength + this.#second.byteLength + this.#seen.byteLength;
  }

  /** The slot holding `fingerprint`, or -1. A hit counts as a use. */
  find(fingerprint: number): number {
    const high = highLane(fingerprint);
    const low = fingerprint >>> 0;
    const start = (low % this.sets) * this.ways;
    for (let slot = start; slot < start + this.ways; slot++) {
      if (this.#low[slot] === low && this.#high[slot] === high) {
        this.#seen[slot] = ++this.#clock;
        return slot;
      }
    }
    return -1;
  }

  read(slot: number, kind: Window['kind']): WindowRecord {
    return kind === 'bucket'
      ? ({ units: this.#first[slot]!, updatedMs: this.#second[slot]! } satisfies TokenBucketState)
      : ({ day: this.#first[slot]!, count: this.#second[slot]! } satisfies UtcDayCounterState);
  }

  /** Store `record` under `fingerprint`: in its slot, a free one, or the set's least recently seen. */
  write(fingerprint: number, record: WindowRecord, known = this.find(fingerprint)): void {
    let slot = known;
    if (slot < 0) {
      const high = highLane(fingerprint);
      const low = fingerprint >>> 0;
      const start = (low % this.sets) * this.ways;
      slot = start;
      for (let candidate = start; candidate < start + this.ways; candidate++) {
        if (this.#low[candidate] === 0 && this.#high[candidate] === 0) {
          slot = candidate;
          this.size++;
          break;
        }
        if (this.#seen[candidate]! < this.#seen[slot]!) slot = candidate;
      }
      this.#high[slot] = high;
      this.#low[slot] = low;
    }
    if ('units' in record) {
      this.#first[slot] = record.units;
      this.#second[slot] = record.updatedMs;
    } else {
      this.#first[slot] = record.day;
      this.#second[slot] = record.count;
    }
    this.#seen[slot] = ++this.#clock;
  }

  clear(): void {
    this.#high.fill(0);
    this.#low.fill(0);
    this.size = 0;
  }
}

/** The fingerprint's upper 21 bits (its lower 32 are `fingerprint >>> 0`): no object per lookup on this path. */
function highLane(fingerprint: number): number {
  return Math.floor(fingerprint / 4294967296);
}

export function createMemoryStore(opts: MemoryStoreOptions = {}): MemoryStore {
  const maxKeys = opts.maxKeys ?? DEFAULT_MAX_KEYS;
  if (!Number.isInteger(maxKeys) || maxKeys < 1) throw new RangeError(`maxKeys must be a positive integer, got ${maxKeys}`);
  const table = new RecordTable(maxKeys);
  /** Window names hashed once: a record's fingerprint is the client key's hash seeded with it. */
  const nameSeeds = new Map<string, number>();

  function fingerprintOf(key: string, window: Window): number {
    let seed = nameSeeds.get(window.name);
    if (seed === undefined) nameSeeds.set(window.name, (seed = hash53(window.name) >>> 0));
    // Never 0, the empty slot's mark.
    return hash53(key, seed) || 1;
  }

  function takeNow(key: string, windows: readonly Window[], nowMs: number): Decision {
    const now = Math.floor(nowMs);
    const fingerprints = windows.map((w) => fingerprintOf(key, w));
    const slots = fingerprints.map((f) => table.find(f));
    const { decision, next } = evaluate(
      windows,
      slots.map((slot, i) => (slot < 0 ? undefined : table.read(slot, windows[i]!.kind))),
      now,
    );
    // A write may evict a slot found above when two of this request's records share a set, so
    // each write looks its slot up again unless it was found and nothing was written before it.
    if (next) next.forEach((record, i) => table.write(fingerprints[i]!, record, i === 0 ? slots[0] : undefined));
    // evaluate's decision is new and ours: stamped, not copied.
    decision.nowMs = now;
    return decision;
  }

  function refundNow(key: string, windows: readonly Window[], decision: Decision): void {
    if (!decision.allowed || decision.nowMs === undefined) return;
    const chargedDay = utcDayOf(decision.nowMs);
    for (const window of windows) {
      if (window.kind !== 'utc-day') continue;
      const fingerprint = fingerprintOf(key, window);
      const slot = table.find(fingerprint);
      if (slot >= 0) table.write(fingerprint, refundRequest(table.read(slot, 'utc-day') as UtcDayCounterState, chargedDay), slot);
    }
  }

  return {
    takeNow,
    refundNow,
    take: (key, windows, nowMs) => Promise.resolve(takeNow(key, windows, nowMs)),
    refund: (key, windows, decision) => Promise.resolve(refundNow(key, windows, decision)),
    close: () => {
      table.clear();
      return Promise.resolve();
    },
    get size() {
      return table.size;
    },
    get bytes() {
      return table.bytes;
    },
  };
}
