/**
 * The Redis store against real Redis servers: the run's shared one (test/global-setup.ts; keys
 * under a prefix unique to this file, deleted afterwards) and private `redis-server` processes
 * started, killed, paused and restarted by the outage tests.
 */
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/app/config.ts';
import type { Decision } from '../../../../src/features/ratelimit/limiter.ts';
import { createMemoryStore } from '../../../../src/features/ratelimit/memory-store.ts';
import { policiesFromConfig, type RateClass } from '../../../../src/features/ratelimit/policies.ts';
import { windowKey } from '../../../../src/features/ratelimit/redis-script.ts';
import { createRedisStore, type RedisStore } from '../../../../src/features/ratelimit/redis-store.server.ts';
import { freePort } from '../../../helpers/processes.ts';
import { PATIENT_REDIS_STORE, startRedis, testRedisUrl } from '../../../helpers/redis.ts';

const SHARED_URL = testRedisUrl();
const PREFIX = `rl-test:${process.pid}-${Date.now()}:`;
const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);
const defaults = policiesFromConfig(loadConfig({}));

interface LogLine {
  level: number;
  msg: string;
}

/** A pino logger whose lines are collected for assertions. */
function collectingLogger() {
  const lines: LogLine[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return {
    log,
    warnings: () => lines.filter((l) => l.level === 40),
    infos: () => lines.filter((l) => l.level === 30),
  };
}

const stores: RedisStore[] = [];
function store(opts: Partial<Parameters<typeof createRedisStore>[0]> = {}): RedisStore {
  const s = createRedisStore({ url: SHARED_URL, log: collectingLogger().log, prefix: PREFIX, ...opts });
  stores.push(s);
  return s;
}

afterAll(async () => {
  await Promise.all(stores.map((s) => s.close()));
  const admin = new Redis(SHARED_URL);
  let cursor = '0';
  do {
    const [next, keys] = await admin.scan(cursor, 'MATCH', `${PREFIX}*`, 'COUNT', 1000);
    if (keys.length > 0) await admin.del(...keys);
    cursor = next;
  } while (cursor !== '0');
  await admin.quit();
});

/** Take until the store is back on Redis; every take along the way must resolve. */
async function takeUntilRecovered(s: RedisStore, route: RateClass): Promise<Decision[]> {
  const decisions: Decision[] = [];
  // Up to a minute: a safety net for a busy machine, the loop ends as soon as the store is back.
  for (let i = 0; i < 1_200 && s.degraded; i++) {
    decisions.push(await s.take(`recovery-${i}`, defaults[route], Date.now()));
    await new Promise((r) => setTimeout(r, 50));
  }
  return decisions;
}

describe('Redis rate-limit store', () => {
  it('lets two instances together admit exactly the limit under 1,000 concurrent requests', async () => {
    const [a, b] = [store(PATIENT_REDIS_STORE), store(PATIENT_REDIS_STORE)];
    // Connect both first so no request is answered by the fallback while connecting.
    await a.take('warm-up-a', defaults.site, Date.now());
    await b.take('warm-up-b', defaults.site, Date.now());

    // contact-hour (20/h, one token per 3 min) binds; the server clock refills nothing meanwhile.
    const client = '198.51.100.1';
    const decisions = await Promise.all(Array.from({ length: 1_000 }, (_, i) => (i % 2 === 0 ? a : b).take(client, defaults.contact, Date.now())));

    const admitted = decisions.filter((d) => d.allowed);
    expect(admitted).toHaveLength(20);
    // Each admitted request saw a different state: the check and the charge were one step.
    const left = admitted.map((d) => d.windows.find((w) => w.window.name === 'contact-hour')?.remaining).sort((x, y) => x! - y!);
    expect(left).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(new Set(decisions.filter((d) => !d.allowed).map((d) => d.scope))).toEqual(new Set(['contact-hour']));
    expect([a.degraded, b.degraded]).toEqual([false, false]);

    // Refusals consumed nothing: the site-minute bucket was charged exactly 20 times (+ refill).
    const next = await a.take(client, defaults.site, Date.now());
    expect(next.windows[0]!.remaining).toBeGreaterThanOrEqual(300 - 21);
    expect(next.windows[0]!.remaining).toBeLessThan(300 - 1);
  });

  it('admits exactly the minute limit of the data interface from two instances at one instant', async () => {
    const [a, b] = [store({ clock: 'caller', ...PATIENT_REDIS_STORE }), store({ clock: 'caller', ...PATIENT_REDIS_STORE })];
    await a.take('warm-up-a', defaults.site, T0);
    await b.take('warm-up-b', defaults.site, T0);
    const decisions = await Promise.all(Array.from({ length: 1_000 }, (_, i) => (i % 2 === 0 ? a : b).take('2001:db8::/64', defaults.data, T0)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    const last = await a.take('2001:db8::/64', defaults.data, T0);
    expect(last).toMatchObject({ allowed: false, scope: 'data-minute', retryAfterSeconds: 1 });
    expect(last.windows.map((w) => w.remaining)).toEqual([0, 5_000 - 60]);
  });

  it('computes in Lua exactly what the TypeScript computes, over a random request sequence', async () => {
    const small = policiesFromConfig(
      loadConfig({
        RATE_LIMIT_SITE_MINUTE: '5',
        RATE_LIMIT_CHAT_MINUTE: '3',
        RATE_LIMIT_CHAT_DAY: '4',
        RATE_LIMIT_CONTACT_HOUR: '2',
        RATE_LIMIT_CONTACT_DAY: '3',
        RATE_LIMIT_DATA_MINUTE: '7',
        RATE_LIMIT_DATA_DAY: '9',
      }),
    );
    const redisStore = store({ clock: 'caller' });
    const memory = createMemoryStore();
    const routes: RateClass[] = ['site', 'chat', 'contact', 'data'];
    // Deterministic PRNG (mulberry32) so a failure replays.
    let seed = 0x5eed;
    const random = () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
    };
    // Starts four minutes before a UTC midnight, so day counters roll over midway.
    let now = Date.UTC(2025, 5, 30, 23, 56, 0);
    let refusals = 0;
    for (let step = 0; step < 600; step++) {
      const r = random();
      now += r < 0.5 ? 0 : r < 0.8 ? Math.floor(random() * 3_000) : r < 0.97 ? Math.floor(random() * 60_000) : -Math.floor(random() * 5_000);
      const client = `192.0.2.${Math.floor(random() * 3)}`;
      const route = routes[Math.floor(random() * routes.length)]!; // index < length
      const fromRedis = await redisStore.take(client, small[route], now);
      const fromMemory = memory.takeNow(client, small[route], now);
      // `shared` says which store answered; everything else must agree.
      expect({ ...fromRedis, shared: undefined }, `step ${step}: ${route} for ${client} at ${new Date(now).toISOString()}`).toEqual(fromMemory);
      if (!fromMemory.allowed) refusals++;
    }
    // The sequence exercised both outcomes.
    expect(refusals).toBeGreaterThan(50);
    expect(refusals).toBeLessThan(550);
    expect(redisStore.degraded).toBe(false);
  });

  it('lets keys expire when the window would be full again (buckets) or at 00:00 UTC (days)', async () => {
    const s = store({ clock: 'caller' });
    await s.take('203.0.113.50', defaults.data, T0);
    const admin = new Redis(SHARED_URL);
    try {
      const [minute, day] = defaults.data;
      const minuteTtl = await admin.pttl(windowKey(PREFIX, '203.0.113.50', minute!));
      const dayTtl = await admin.pttl(windowKey(PREFIX, '203.0.113.50', day!));
      // One of 60/min used: full again 1 s later. T0 is 12:00 UTC: 12 h to midnight.
      expect(minuteTtl).toBeGreaterThan(0);
      expect(minuteTtl).toBeLessThanOrEqual(1_000);
      expect(dayTtl).toBeGreaterThan(12 * 3_600_000 - 60_000);
      expect(dayTtl).toBeLessThanOrEqual(12 * 3_600_000);
    } finally {
      await admin.quit();
    }
  });

  it('keeps answering from memory when its Redis is killed mid-test, warns once, and returns when it is back', async () => {
    let server = await startRedis();
    const { port } = server;
    const { log, warnings, infos } = collectingLogger();
    const s = createRedisStore({ url: server.url, log, prefix: PREFIX, retryAfterFailureMs: 200 });
    const admin = new Redis(server.url);
    try {
      for (let i = 0; i < 20; i++) expect((await s.take(`before-${i}`, defaults.chat, Date.now())).allowed).toBe(true);
      expect(s.degraded).toBe(false);
      expect(await admin.exists(windowKey(PREFIX, 'before-0', defaults.chat[1]!))).toBe(1);
      admin.disconnect();

      // Requests in flight when Redis dies, and requests after: every one is answered.
      const inFlight = Array.from({ length: 300 }, (_, i) => s.take(`during-${i}`, defaults.chat, Date.now()));
      const killed = server.kill();
      const during = await Promise.all(inFlight);
      await killed;
      const after: Decision[] = [];
      for (let i = 0; i < 100; i++) after.push(await s.take(`after-${i % 5}`, defaults.chat, Date.now()));

      expect(during.every((d) => d.allowed)).toBe(true);
      expect(after.every((d) => d.windows.length === 3)).toBe(true);
      // 20 requests for each of 5 clients: in-process limits still apply (10 per minute each).
      expect(after.filter((d) => d.allowed)).toHaveLength(50);
      expect(s.degraded).toBe(true);
      expect(warnings()).toHaveLength(1);
      expect(warnings()[0]?.msg).toMatchInlineSnapshot(`"Redis unavailable: rate limits are enforced per instance until it answers again"`);

      // Redis comes back (empty, as after a crash): the store returns to it and says so, once.
      server = await startRedis(port);
      const recovery = await takeUntilRecovered(s, 'site');
      expect(recovery.every((d) => d.allowed)).toBe(true);
      expect(s.degraded).toBe(false);
      expect(infos().map((l) => l.msg)).toEqual(['Redis answers again: rate limits are shared again']);
      const check = new Redis(server.url);
      await s.take('back-again', defaults.site, Date.now());
      expect(await check.exists(windowKey(PREFIX, 'back-again', defaults.site[0]!))).toBe(1);
      await check.quit();
      expect(warnings()).toHaveLength(1);
    } finally {
      admin.disconnect();
      await s.close();
      await server.kill();
    }
  });

  it('falls back instead of waiting when Redis stops answering (paused), and probes it again later', async () => {
    const server = await startRedis();
    const { log, warnings, infos } = collectingLogger();
    const s = createRedisStore({ url: server.url, log, prefix: PREFIX, retryAfterFailureMs: 200 });
    try {
      expect((await s.take('p', defaults.site, Date.now())).allowed).toBe(true);
      expect(s.degraded).toBe(false);
      server.process.child.kill('SIGSTOP');
      const stalled = await Promise.all(Array.from({ length: 50 }, (_, i) => s.take(`stalled-${i}`, defaults.site, Date.now())));
      expect(stalled.every((d) => d.allowed)).toBe(true);
      expect(s.degraded).toBe(true);
      expect(warnings()).toHaveLength(1);
      server.process.child.kill('SIGCONT');
      await takeUntilRecovered(s, 'site');
      expect(s.degraded).toBe(false);
      expect(infos()).toHaveLength(1);
      expect(warnings()).toHaveLength(1);
    } finally {
      server.process.child.kill('SIGCONT');
      await s.close();
      await server.kill();
    }
  });

  it('answers from memory with one warning when Redis was never reachable', async () => {
    const port = await freePort(); // nothing listens there
    const { log, warnings } = collectingLogger();
    const s = createRedisStore({ url: `redis://127.0.0.1:${port}`, log, prefix: PREFIX });
    try {
      const decisions = await Promise.all(Array.from({ length: 12 }, () => s.take('lonely', defaults.chat, Date.now())));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      expect(decisions.find((d) => !d.allowed)?.scope).toBe('chat-minute');
      expect(s.degraded).toBe(true);
      expect(warnings()).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('answers in-process after close without touching Redis', async () => {
    const s = store();
    await s.close();
    await expect(s.take('closed', defaults.site, Date.now())).resolves.toMatchObject({ allowed: true });
  });
});
