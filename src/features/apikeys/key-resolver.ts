/**
 * From a presented token to a key, without a database query per request (issue 20, item 5).
 *
 * Answers are remembered in a bounded LRU (lru-cache) for `ttlMs`: live keys and unknown or
 * revoked tokens alike, so a client repeating a bad token costs no query either. A revocation
 * therefore takes effect within `ttlMs` on every instance (API_KEY_CACHE_SECONDS, default 30 s),
 * with no purge channel between instances to fail. Concurrent requests with one uncached token
 * share one query. Failures are never remembered: the next request asks again.
 *
 * Tokens nobody has seen cost one indexed query each, so each client (address) may have at most
 * LOOKUP_BUDGET such queries per minute; past it a token not in the cache is answered as invalid
 * without asking. A real integrator presents one or two tokens, which stay cached, and never
 * meets that budget; a client guessing tokens meets it at once.
 */
import { LRUCache } from 'lru-cache';
import { createMemoryStore } from '../ratelimit/memory-store.ts';
import type { Window } from '../ratelimit/policies.ts';
import { hashToken, type ApiKey } from './api-key.ts';

export type KeyLookup = { kind: 'valid'; key: ApiKey } | { kind: 'invalid' } | { kind: 'unavailable'; error: unknown };

/** Uncached token lookups a client may cause per minute. */
export const LOOKUP_BUDGET: Window = { name: 'key-lookup', limit: 30, kind: 'bucket', periodSeconds: 60 };
/** Remembered answers (roughly 300 bytes each: well under 5 MB at the bound). */
export const DEFAULT_MAX_ENTRIES = 10_000;

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
  const answers = new LRUCache<string, Entry>({ max: opts.maxEntries ?? DEFAULT_MAX_ENTRIES });
  const inFlight = new Map<string, Promise<ApiKey | undefined>>();
  const budget = createMemoryStore({ maxKeys: opts.maxEntries ?? DEFAULT_MAX_ENTRIES });

  async function resolve(token: string, clientKey: string): Promise<KeyLookup> {
    const tokenHash = hashToken(token);
    const at = now();
    const known = answers.get(tokenHash);
    if (known !== undefined && known.expiresAt > at) return known.key ? { kind: 'valid', key: known.key } : { kind: 'invalid' };

    let pending = inFlight.get(tokenHash);
    if (pending === undefined) {
      if (!budget.takeNow(clientKey, [LOOKUP_BUDGET], at).allowed) return { kind: 'invalid' };
      pending = opts.find(tokenHash).finally(() => inFlight.delete(tokenHash));
      inFlight.set(tokenHash, pending);
    }
    try {
      const key = await pending;
      answers.set(tokenHash, { key, expiresAt: now() + opts.ttlMs });
      return key ? { kind: 'valid', key } : { kind: 'invalid' };
    } catch (error) {
      return { kind: 'unavailable', error };
    }
  }

  return {
    resolve,
    get size() {
      return answers.size;
    },
  };
}
