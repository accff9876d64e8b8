/**
 * From a presented token to a key, without a database query per request.
 *
 * Answers are remembered in a bounded LRU (lru-cache) for `ttlMs`: live keys and unknown or
 * revoked tokens alike, so a client repeating a bad token costs no query either. A revocation
 * therefore takes effect within `ttlMs` on every instance (API_KEY_CACHE_SECONDS, default 30 s),
 * with no purge channel between instances to fail. Concurrent requests with one uncached token
 * share one query. Failures are never remembered: the next request asks again.
 *
 * Tokens nobody has seen cost one indexed query each, so each client (address) may have at most
 * LOOKUP_BUDGET such queries per minute; past it a token not in the cache is not looked up and the
 * request is told to retry later (429), never that its key is invalid: a real integrator behind the
 * same address as a guesser must not read its live key as revoked. A real integrator presents one or two tokens, which stay cached, and never
 * meets that budget; a client guessing tokens meets it at once.
 */
import { LRUCache } from 'lru-cache';
import { createMemoryStore } from '../ratelimit/memory-store.ts';
import type { Window } from '../ratelimit/policies.ts';
import { hashToken, type ApiKey } from './api-key.ts';

export type KeyLookup =
  | { kind: 'valid'; key: ApiKey }
  | { kind: 'invalid' }
  | { kind: 'unavailable'; error: unknown }
  /** The client's budget of uncached lookups is spent: not a verdict on the token, ask again after `retryAfterSeconds`. */
  | { kind: 'throttled'; retryAfterSeconds: number };

/** Uncached token lookups a client may cause per minute. */
export const LOOKUP_BUDGET: Window = { name: 'key-lookup', limit: 30, kind: 'bucket', periodSeconds: 60 };
/** Remembered answers (roughly 300 bytes each: well under 5 MB at the bound). */
export const DEFAULT_MAX_ENTRIES = 10_000;
/** Remembered unknown tokens, apart from live keys: a flood of guesses can evict only other guesses. */
const UNKNOWN_SHARE = 4;

export interface KeyResolverOptions {
  /** The live key whose token has this SHA-256, undefined when unknown or revoked; rejects when the database cannot answer. */
  find(tokenHash: string): Promise<ApiKey | undefined>;
  /** How long an answer is trusted. */
  ttlMs: number;
  maxEntries?: number;
  /** Clock (tests drive it). */
  now?: () => number;
}

export interface KeyResolver {
  resolve(token: string, clientKey: string): Promise<KeyLookup>;
  /** Answers currently remembered (tests prove the bound). */
  readonly size: number;
}

interface Entry {
  key: ApiKey | undefined;
  expiresAt: number;
}

export function createKeyResolver(opts: KeyResolverOptions): KeyResolver {
  const now = opts.now ?? Date.now;
  const maxEntries = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
  const answers = new LRUCache<string, Entry>({ max: maxEntries });
  const unknown = new LRUCache<string, Entry>({ max: Math.max(1, Math.floor(maxEntries / UNKNOWN_SHARE)) });
  const inFlight = new Map<string, Promise<ApiKey | undefined>>();
  const budget = createMemoryStore({ maxKeys: opts.maxEntries ?? DEFAULT_MAX_ENTRIES });

  async function resolve(token: string, clientKey: string): Promise<KeyLookup> {
    const tokenHash = hashToken(token);
    const at = now();
    const known = answers.get(tokenHash) ?? unknown.get(tokenHash);
    if (known !== undefined && known.expiresAt > at) return known.key ? { kind: 'valid', key: known.key } : { kind: 'invalid' };

    let pending = inFlight.get(tokenHash);
    if (pending === undefined) {
      const allowance = budget.takeNow(clientKey, [LOOKUP_BUDGET], at);
      if (!allowance.allowed) return { kind: 'throttled', retryAfterSeconds: allowance.retryAfterSeconds ?? 1 };
      pending = opts.find(tokenHash).finally(() => inFlight.delete(tokenHash));
      inFlight.set(tokenHash, pending);
    }
    try {
      const key = await pending;
      (key ? answers : unknown).set(tokenHash, { key, expiresAt: now() + opts.ttlMs });
      return key ? { kind: 'valid', key } : { kind: 'invalid' };
    } catch (error) {
      return { kind: 'unavailable', error };
    }
  }

  return {
    resolve,
    get size() {
      return answers.size + unknown.size;
    },
  };
}
