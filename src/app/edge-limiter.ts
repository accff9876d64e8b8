/**
 * The edge's view of rate limiting: the windows of a request's rate class (the route table
 * decides the class, src/server/routes.ts), one atomic take from the store, the spec's headers,
 * and the 429 for a refused request. On the data interface it also reads the optional API key
 * (Bearer token) whose own windows replace the client address's, answers 401 for a token that is
 * not a live key, and gives a 304's day unit back. The policy, bucket math and stores live in
 * src/features/ratelimit; keys in src/features/apikeys.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from './config.ts';
import { createKeyResolver, credentialsOf, findLiveKey, KEY_FORMAT, type ApiKey, type Credentials, type KeyResolver } from '../features/apikeys/index.ts';
import {
  createMemoryStore,
  createRedisStore,
  dataHeaders,
  draftHeaders,
  policiesFromConfig,
  refundedDecision,
  siteHeaders,
  type Decision,
  type RateLimitStore,
  type Window,
} from '../features/ratelimit/index.ts';
import type { DbHandle } from '../db/create-db.ts';
import type { EdgeLimiter, LimitOutcome } from '../server/http.ts';
import type { Logger } from '../server/log.ts';
import { HttpError } from '../lib/http-error.ts';
import type { Meter } from '../lib/meter.ts';

/** Budget of one key lookup in the database: a stuck database answers 503 quickly, never hangs the request. */
const KEY_LOOKUP_DEADLINE_MS = 1_000;

export interface EdgeRateLimiter extends EdgeLimiter {
  /** True while Redis is failing and limits are enforced per instance (redis-store.server.ts). */
  readonly degraded: boolean;
  close(): Promise<void>;
}

export interface EdgeLimiterOptions {
  /** Where API keys live; without it every Authorization header is answered 401. */
  db?: DbHandle;
  now?: () => number;
  /** Counts Redis failures (`redis_errors_total`). */
  meter?: Meter;
}

/** The data windows of a key: the anonymous windows' names (so X-RateLimit-Scope reads the same) with the key's limits. */
export function keyWindows(key: ApiKey): Window[] {
  return [
    { name: 'data-minute', limit: key.minuteLimit, kind: 'bucket', periodSeconds: 60 },
    { name: 'data-day', limit: key.dayLimit, kind: 'utc-day', periodSeconds: 86_400 },
  ];
}

/** 401 in the data interface's format, with the challenge of RFC 6750 section 3. */
function unauthorized(credentials: Credentials): HttpError {
  return new HttpError('unauthorized', {
    detail:
      credentials.kind === 'malformed'
        ? `The Authorization header does not carry an API key: ${credentials.problem}. Send ${KEY_FORMAT}, or no Authorization header for anonymous limits.`
        : 'The API key is not valid: it is unknown or has been revoked. Send a live key, or no Authorization header for anonymous limits.',
    // invalid_token: "expired, revoked, malformed, or invalid for other reasons" (RFC 6750 section 3.1).
    headers: { 'www-authenticate': 'Bearer realm="data", error="invalid_token"' },
  });
}

export function createEdgeLimiter(config: Config, log: Logger, options: EdgeLimiterOptions = {}): EdgeRateLimiter {
  const now = options.now ?? Date.now;
  const policies = policiesFromConfig(config);
  const draft = config.RATE_LIMIT_DRAFT_HEADERS;
  const memory = config.REDIS_URL ? undefined : createMemoryStore();
  const store: RateLimitStore & { readonly degraded?: boolean } =
    memory ?? createRedisStore({ url: config.REDIS_URL!, log, prefix: config.REDIS_KEY_PREFIX, commandTimeoutMs: config.REDIS_TIMEOUT_MS, ...(options.meter ? { meter: options.meter } : {}) });
  /** The in-process store answers at once: its decision is used without a promise (see `then`). */
  const take = (key: string, windows: Window[], at: number): Maybe<Decision> => (memory ? memory.takeNow(key, windows, at) : store.take(key, windows, at));
  const { db } = options;
  const keys: KeyResolver | undefined = db && createKeyResolver({
    find: (tokenHash) => db.within(KEY_LOOKUP_DEADLINE_MS, (kysely) => findLiveKey(kysely, tokenHash)),
    ttlMs: config.API_KEY_CACHE_SECONDS * 1000,
    now,
  });

  const dataRefusals = refusalMemo();
  const siteRefusals = refusalMemo();

  function dataFigures(decision: Decision, at: number): Record<string, string> {
    return draft ? { ...dataHeaders(decision, at), ...draftHeaders(decision) } : dataHeaders(decision, at);
  }

  /** One take from the data windows of `key` (a client address or `key:<id>`). */
  function takeData(key: string, windows: Window[]): Maybe<LimitOutcome> {
    const at = now();
    const decision = take(key, windows, at);
    return decision instanceof Promise ? decision.then((known) => dataOutcome(key, windows, known, at)) : dataOutcome(key, windows, decision, at);
  }

  // Made once, not per request: the closures `then` is handed on the in-process path.
  const siteOf = (decision: Decision) => siteOutcome(decision, draft, siteRefusals);
  const markDegraded = degradedMark(store);

  function dataOutcome(key: string, windows: Window[], decision: Decision, at: number): LimitOutcome {
    const headers = dataFigures(decision, at);
    if (!decision.allowed) return { headers, refused: dataRefusal(decision, dataRefusals) };
    return {
      headers,
      // A 304 Not Modified does not spend the daily quota (GitHub's rule): the day unit taken
      // above is given back, and the 304 reports the day as it stands without it. Charging first
      // and refunding keeps the quota exact under concurrency (it can never be overspent).
      onStatus: (status) => {
        if (status !== 304) return undefined;
        store.refund(key, windows, decision).catch((err: unknown) => log.debug({ err }, 'rate-limit refund failed'));
        return dataFigures(refundedDecision(decision), at);
      },
    };
  }

  function checkData(clientKey: string, headers: IncomingHttpHeaders): Maybe<LimitOutcome> {
    const credentials = credentialsOf(headers);
    return credentials.kind === 'none' ? takeData(clientKey, policies.data) : checkCredentials(clientKey, credentials);
  }

  async function checkCredentials(clientKey: string, credentials: Exclude<Credentials, { kind: 'none' }>): Promise<LimitOutcome> {
    if (credentials.kind === 'bearer' && keys) {
      const found = await keys.resolve(credentials.token, clientKey);
      if (found.kind === 'valid') return takeData(`key:${found.key.id}`, keyWindows(found.key));
      if (found.kind === 'throttled' || found.kind === 'unavailable') return keyRefusal(found, log);
    }
    // A token that is not a live key is charged as an anonymous request of the client address, so
    // bad credentials never buy more than anonymous access; when those windows are spent the
    // answer is their 429.
    const anonymous = await takeData(clientKey, policies.data);
    if (anonymous.refused) return anonymous;
    return { headers: anonymous.headers, refused: unauthorized(credentials) };
  }

  return {
    check(routeClass, clientKey, headers): Maybe<LimitOutcome> {
      const outcome = routeClass === 'data' ? checkData(clientKey, headers) : then(take(clientKey, policies[routeClass], now()), siteOf);
      return then(outcome, markDegraded);
    },
    get degraded() {
      return store.degraded === true;
    },
    close: () => store.close(),
  };
}

type Maybe<T> = T | Promise<T>;

/** An outcome marked degraded while the store is: read after the take, which is what finds a shared store's backend gone. */
function degradedMark(store: { readonly degraded?: boolean }): (known: LimitOutcome) => LimitOutcome {
  return (known) => {
    if (store.degraded) known.degraded = true;
    return known;
  };
}

/**
 * `next` of a value that may still be coming: at once when it is there. The in-process store
 * decides synchronously, and each `await` of its answer (through four async functions) was a
 * turn of the microtask queue and a promise per limited request.
 */
function then<T, R>(value: Maybe<T>, next: (known: T) => Maybe<R>): Maybe<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** The data interface's 429 for a refused take: the day's quota or the minute's rate, and the wait. */
function dataRefusal(decision: Decision, refusals: RefusalMemo): HttpError {
  return refusals(decision.scope, decision.retryAfterSeconds ?? 1, dataRateLimited);
}

function dataRateLimited(scope: string | undefined, wait: number): HttpError {
  const detail =
    scope === 'data-day'
      ? `rate limit exceeded: the daily quota is spent; it resets at 00:00 UTC, in ${wait} seconds`
      : `rate limit exceeded: too many requests in a given amount of time; retry after ${wait} seconds`;
  return new HttpError('SVC1010', { detail });
}

/** A take from a site class's windows as the edge's outcome: its headers, and the 429 problem when refused. */
function siteOutcome(decision: Decision, draft: boolean, refusals: RefusalMemo): LimitOutcome {
  const figures = draft ? { ...siteHeaders(decision), ...draftHeaders(decision) } : siteHeaders(decision);
  if (decision.allowed) return { headers: figures };
  return { headers: figures, refused: refusals(decision.scope, decision.retryAfterSeconds ?? 1, siteRateLimited) };
}

function siteRateLimited(scope: string | undefined, wait: number): HttpError {
  return new HttpError('rate_limited', {
    detail: `The ${scope ?? 'rate'} limit is used up for this client.`,
    resolution: `Wait ${wait} second${wait === 1 ? '' : 's'} (Retry-After) before retrying.`,
    extensions: { scope, retryAfter: wait },
  });
}

/** A refusal by what it says (its window and wait), made once: `make` runs on the first of each. */
type RefusalMemo = (scope: string | undefined, wait: number, make: (scope: string | undefined, wait: number) => HttpError) => HttpError;

/**
 * Refusals are the same for every client over the same window with the same wait, and a client
 * over its limit asks again and again: each is made once (and rendered once, src/server/admit.ts),
 * instead of an error, its message and its body per 429. Found by window, then by wait: no key
 * string is built (and hashed) per refusal, and `make` is a plain function, no closure per 429.
 * Bounded: the day window's wait changes every second.
 */
function refusalMemo(): RefusalMemo {
  const made = new Map<string | undefined, Map<number, HttpError>>();
  let size = 0;
  return (scope, wait, make) => {
    let error = made.get(scope)?.get(wait);
    if (error === undefined) {
      if (size >= 256) {
        made.clear();
        size = 0;
      }
      let byWait = made.get(scope);
      if (byWait === undefined) made.set(scope, (byWait = new Map()));
      byWait.set(wait, (error = make(scope, wait)));
      size++;
    }
    return error;
  };
}

/** A bearer token that could not be judged: too many unknown ones from this address (429), or no database (503). */
function keyRefusal(found: { kind: 'throttled'; retryAfterSeconds: number } | { kind: 'unavailable'; error: unknown }, log: Logger): LimitOutcome {
  if (found.kind === 'throttled') {
    // Not a verdict on the token: too many unknown tokens from this address in the last
    // minute (key-resolver.ts). A 429 the client may retry, never a 401 that reads as revoked.
    const wait = String(found.retryAfterSeconds);
    return {
      headers: { 'Retry-After': wait },
      refused: new HttpError('SVC1010', { detail: `rate limit exceeded: too many unrecognised API keys from this address; retry after ${wait} seconds` }),
    };
  }
  log.warn({ err: found.error }, 'API key lookup failed: the database did not answer');
  return {
    headers: {},
    refused: new HttpError('service_unavailable', {
      detail: 'API keys cannot be checked just now: the database is unavailable. Try again in a few seconds.',
      headers: { 'retry-after': '5' },
    }),
  };
}
