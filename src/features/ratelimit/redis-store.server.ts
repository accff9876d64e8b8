/**
 * The shared store: buckets live in Redis so every instance behind a load balancer draws from
 * the same limits. Each check is one EVALSHA of the script in redis-script.ts (ioredis
 * `defineCommand`, which falls back to EVAL when Redis answers NOSCRIPT, e.g. after a restart).
 *
 * The limiter must never be the reason a request fails or hangs: when Redis is
 * unreachable, slow or answers nonsense, `take` answers from an in-process memory store instead.
 * One warning is logged per outage and one info line when Redis answers again. While Redis is
 * failing, takes stay in memory for `retryAfterFailureMs`, then a single probe request tries
 * Redis again (a small circuit breaker), so a slow Redis costs at most one command timeout per
 * interval rather than one per request.
 */
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { NO_METER, type Meter } from '../../lib/meter.ts';
import type { Decision, RateLimitStore } from './limiter.ts';
import { createMemoryStore } from './memory-store.ts';
import type { Window } from './policies.ts';
import { decisionFromReply, REFUND_SCRIPT, scriptArgs, TAKE_SCRIPT, windowKey } from './redis-script.ts';
import { utcDayOf } from './utc-day-counter.ts';

export interface RedisStoreOptions {
  /** redis:// or rediss:// URL (REDIS_URL). */
  url: string;
  log: Logger;
  /** Prefix of every key; default 'rl:'. Tests use a unique one per run. */
  prefix?: string;
  /**
   * Whose clock measures refill: 'redis' (default) uses the Redis server's TIME, one clock for
   * every instance, so clock skew between instances cannot mint tokens; 'caller' uses the
   * `nowMs` passed to `take` (tests with an injected clock).
   */
  clock?: 'redis' | 'caller';
  /** A command unanswered after this long counts as an outage; default 250 ms. */
  commandTimeoutMs?: number;
  /**
   * How long requests arriving while the very first connection is being made wait for it before
   * being answered in-process; default 1 000 ms. Only the first moments after start-up can wait:
   * a refused connection ends the wait at once, and later reconnections are never waited for.
   */
  firstConnectWaitMs?: number;
  /** After a failure, answer from memory this long before probing Redis again; default 1 000 ms. */
  retryAfterFailureMs?: number;
  /** Bound of the in-process fallback store (see createMemoryStore). */
  maxKeys?: number;
  /** Counts `redis_errors_total` for each command that fails or finds no connection. */
  meter?: Meter;
}

export interface RedisStore extends RateLimitStore {
  /** True while takes are answered in-process because Redis is failing. */
  readonly degraded: boolean;
}

/** The script as a command on the client: numkeys, keys..., args... (EVALSHA argument order). */
interface WithTakeCommand {
  rateLimitTake(numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
  rateLimitRefund(numKeys: number, ...keysAndArgs: string[]): Promise<unknown>;
}

/** The client: lazy, never queueing, failing fast, with the two scripts defined as commands. */
function redisClient(url: string, commandTimeout: number): Redis & WithTakeCommand {
  const client = new Redis(url, {
    // Connect on first use (no I/O when the store is created) and never queue commands while
    // disconnected: a queued command is a request waiting on the limiter.
    lazyConnect: true,
    enableOfflineQueue: false,
    // Reject in-flight commands as soon as the connection drops, instead of resending them.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout,
    connectTimeout: 2_000,
    // Keep reconnecting in the background for as long as the process runs.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    connectionName: 'ratelimit',
  });
  client.defineCommand('rateLimitTake', { lua: TAKE_SCRIPT });
  client.defineCommand('rateLimitRefund', { lua: REFUND_SCRIPT });
  return client as Redis & WithTakeCommand;
}

/**
 * The first connection, waited for at most `waitMs`: requests arriving while it is being made
 * wait for it (bounded), otherwise every instance would start with a spurious outage warning.
 * Resolves either way; the retry strategy keeps trying and the take that waited reports an outage.
 */
function firstConnection(client: Redis, waitMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, waitMs);
    timer.unref();
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    client.connect().then(done, done);
  });
}

/**
 * The small circuit breaker: after a failure, takes are answered in memory for
 * `retryAfterFailureMs`, then one probe at a time tries Redis again. One warning per outage and
 * one info line when Redis answers again.
 */
function outageBreaker(log: Logger, retryAfterFailureMs: number, meter: Meter) {
  let degraded = false;
  let skipUntil = 0;
  let probing = false;
  return {
    get degraded() {
      return degraded;
    },
    /** A fresh connection: the next take probes Redis at once instead of waiting out the interval. */
    reconnected(): void {
      skipUntil = 0;
    },
    /** Whether this take may go to Redis; when degraded, only as the one probe of its interval. */
    tryEnter(): { allowed: boolean; probe: boolean } {
      if (!degraded) return { allowed: true, probe: false };
      if (probing || performance.now() < skipUntil) return { allowed: false, probe: false };
      probing = true;
      return { allowed: true, probe: true };
    },
    probeDone(): void {
      probing = false;
    },
    outage(reason: unknown): void {
      meter.count('redis_errors_total');
      skipUntil = performance.now() + retryAfterFailureMs;
      if (degraded) return;
      degraded = true;
      log.warn(
        { err: reason instanceof Error ? reason.message : String(reason) },
        'Redis unavailable: rate limits are enforced per instance until it answers again',
      );
    },
    recovered(): void {
      if (!degraded) return;
      degraded = false;
      log.info('Redis answers again: rate limits are shared again');
    },
  };
}

/** Close the connection: politely (QUIT) when Redis answers, and disconnected either way. */
async function quit(redis: ReturnType<typeof redisClient>): Promise<void> {
  try {
    if (redis.status === 'ready') await redis.quit();
  } catch {
    // Quitting politely failed (Redis went away meanwhile); disconnect below either way.
  } finally {
    redis.disconnect();
  }
}

export function createRedisStore(opts: RedisStoreOptions): RedisStore {
  const log = opts.log.child({ component: 'ratelimit' });
  const prefix = opts.prefix ?? 'rl:';
  const firstConnectWaitMs = opts.firstConnectWaitMs ?? 1_000;
  const fallback = createMemoryStore(opts.maxKeys === undefined ? {} : { maxKeys: opts.maxKeys });
  const redis = redisClient(opts.url, opts.commandTimeoutMs ?? 250);
  const breaker = outageBreaker(log, opts.retryAfterFailureMs ?? 1_000, opts.meter ?? NO_METER);
  let closed = false;
  let firstConnect: Promise<void> | undefined;

  // ioredis emits 'error' for every failed (re)connection attempt; an 'error' event without a
  // listener would crash the process. The outage itself is reported once, by `take`.
  redis.on('error', (err: Error) => log.debug({ err: err.message }, 'Redis connection error'));
  redis.on('ready', () => breaker.reconnected());

  async function take(key: string, windows: Window[], nowMs: number): Promise<Decision> {
    if (windows.length === 0 || closed) return fallback.takeNow(key, windows, nowMs);
    if (redis.status === 'wait') firstConnect ??= firstConnection(redis, firstConnectWaitMs);
    if (firstConnect !== undefined && redis.status !== 'ready') await firstConnect;
    if (redis.status !== 'ready') {
      breaker.outage(new Error(`Redis connection is ${redis.status}`));
      return fallback.takeNow(key, windows, nowMs);
    }
    const { allowed, probe } = breaker.tryEnter();
    if (!allowed) return fallback.takeNow(key, windows, nowMs);
    try {
      const reply = await redis.rateLimitTake(
        windows.length,
        ...windows.map((w) => windowKey(prefix, key, w)),
        ...scriptArgs(windows, opts.clock === 'caller' ? nowMs : undefined),
      );
      const decision = decisionFromReply(windows, reply);
      breaker.recovered();
      return decision;
    } catch (err) {
      breaker.outage(err);
      return fallback.takeNow(key, windows, nowMs);
    } finally {
      if (probe) breaker.probeDone();
    }
  }

  /**
   * A refund goes where the take went: Redis for a decision Redis made, the fallback otherwise.
   * A refund Redis cannot take is dropped (logged at debug): the client is then charged as if
   * the 304 had been a 200, the safe side of the quota.
   */
  async function refund(key: string, windows: readonly Window[], decision: Decision): Promise<void> {
    const days = windows.filter((w) => w.kind === 'utc-day');
    if (!decision.allowed || decision.nowMs === undefined || days.length === 0) return;
    if (decision.shared !== true) return fallback.refundNow(key, days, decision);
    if (closed || redis.status !== 'ready') return;
    try {
      await redis.rateLimitRefund(days.length, ...days.map((w) => windowKey(prefix, key, w)), String(utcDayOf(decision.nowMs)));
    } catch (err) {
      log.debug({ err: err instanceof Error ? err.message : String(err) }, 'rate-limit refund not applied');
    }
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    await quit(redis);
    await fallback.close();
  }

  return {
    take,
    refund,
    close,
    get degraded() {
      return breaker.degraded;
    },
  };
}
