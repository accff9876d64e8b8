/**
 * Composition root: builds every long-lived part from the validated configuration and returns a
 * running app that listens and shuts down. Nothing here runs at import time; `main.ts` calls it, and
 * tests can too.
 */
import type { AddressInfo, Socket } from 'node:net';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Config } from './config.ts';
import { openMigratedDb } from '../db/open-migrated-db.ts';
import type { DbHandle } from '../db/create-db.ts';
import { createServices, type Services } from './services.ts';
import { startOutbox } from './jobs/outbox.ts';
import { startJobs } from './jobs/schedule.ts';
import { startBackups } from './jobs/backup.ts';
import { clientKeyOf, isTrustedProxy, policiesFromConfig } from '../features/ratelimit/index.ts';
import type { IncomingMessage, Server } from 'node:http';
import { createEdge, type AstroHandler } from '../server/http.ts';
import type { Logger } from '../server/log.ts';
import { ResponseCache } from '../server/response-cache.ts';
import { createEdgeLimiter } from './edge-limiter.ts';
import { StaticFiles } from '../server/static-files.ts';
import { routeAstroLogTo } from '../server/astro-log.ts';
import { recentCheck } from '../lib/probes.ts';
import { ASSISTANT_INDEX_FILE } from '../features/chat/index-writer.ts';
import { AssistantIndex } from '../features/chat/assistant-index.ts';
import { chatEndpoint } from '../features/chat/chat.endpoint.ts';
import { originSettingsOf } from '../lib/cors-decision.ts';
import { PATHS } from '../lib/paths.ts';
import { engineOf } from '../db/database-url.ts';
import { NO_METER, type Meter } from '../lib/meter.ts';
import { createMetrics } from '../features/metrics/registry.server.ts';
import { metricsExposition, registerCollectors } from './metrics.ts';
import { createRequestObserver } from './request-metrics.ts';

/** Upper bound on how stale a cached response may be on an instance that missed a purge. */
const CACHE_MAX_TTL_MS = 60_000;

export interface RunningApp {
  /**
   * Bind the port, resolve the public origin (PORT=0 learns its port here) into the frozen
   * configuration the services carry, then start the jobs. Resolves with the bound origin.
   */
  listen(): Promise<{ origin: string; services: Services }>;
  /** Stop accepting, let in-flight requests finish within `graceMs`, then release everything. */
  close(graceMs?: number): Promise<void>;
}

/**
 * Answer one chat request right after listening, off the request path and past every limit, so
 * the first visitor's reply starts as fast as later ones (its code paths compiled, the index's
 * pages read).
 */
async function warmUp(services: Services): Promise<void> {
  const body = new TextEncoder().encode(JSON.stringify({ messages: [{ role: 'user', content: 'hello' }] }));
  // No Origin: the endpoint is called past the edge, whose CORS decision is the only origin check.
  const headers = new Headers({ 'content-type': 'application/json' });
  const url = new URL(PATHS.chat, services.config.SITE_URL);
  const answer = await chatEndpoint({ method: 'POST', url, headers, body, deadline: Date.now() + 10_000, signal: AbortSignal.timeout(10_000) }, { ...services, chunkDelayMs: 0 });
  if (answer.body instanceof ReadableStream) await new Response(answer.body).arrayBuffer();
  services.log.debug({ status: answer.status }, 'warmed up');
}

/** The rate-limit identity of a request's client (src/features/ratelimit/client-key.ts). */
function clientKeys(config: Config): (req: IncomingMessage) => string {
  const socketKeys = new WeakMap<Socket, string>();
  const keyOf = (req: IncomingMessage) => clientKeyOf(req.socket.remoteAddress, req.headers, config.TRUST_PROXY, config.RATE_LIMIT_IPV6_PREFIX);
  return (req) => {
    if (config.TRUST_PROXY.kind !== 'none') return keyOf(req);
    // Trusting no proxy, the key is the peer's address: parsed once per connection, not per request.
    let key = socketKeys.get(req.socket);
    if (key === undefined) socketKeys.set(req.socket, (key = keyOf(req)));
    return key;
  };
}

/** What the build holds for the server: Astro's handler, the assistant's index, the prebuilt files. */
interface Build {
  astro: AstroHandler;
  assistantIndex: AssistantIndex;
  statics: StaticFiles;
}

/** Load the build in `distDir`; closes `db` before throwing when any part of it cannot be read. */
async function loadBuild(distDir: string, config: Config, log: Logger, db: DbHandle, now: () => number): Promise<Build> {
  // Astro's messages (its adapter's, its image service's) become lines of this logger.
  routeAstroLogTo(log);
  const entry = pathToFileURL(join(distDir, 'server', 'entry.mjs')).href;
  let astro: AstroHandler;
  try {
    ({ handler: astro } = (await import(entry)) as { handler: AstroHandler });
  } catch (error) {
    await db.close();
    throw new Error(`Cannot load the Astro build at ${entry}: run \`npm run build\` first.`, { cause: error });
  }
  try {
    // Opening reads the schema only: start-up and memory do not grow with the news archive.
    const assistantIndex = AssistantIndex.open(join(distDir, 'server', ASSISTANT_INDEX_FILE), { now });
    // The build's manifest only: bodies are read when first asked for (src/server/static-files.ts).
    const statics = await StaticFiles.load(distDir, { maxBytes: config.STATIC_CACHE_MAX_BYTES, log, now });
    return { astro, assistantIndex, statics };
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** The readiness probe's check: at most one a second, one at a time, whatever the polling rate (probes.ts). */
function readinessCheck(db: DbHandle, log: Logger): () => Promise<void> {
  // A failure is logged here, once per check, not by each probe its remembered result answers.
  return recentCheck(async () => {
    try {
      await db.ping();
      log.debug({ ready: true }, 'readiness checked');
    } catch (error) {
      log.warn({ err: error }, 'readiness check failed');
      throw error;
    }
  });
}

/**
 * Background work: it starts once the server listens (a process that cannot bind its port must
 * not keep timers alive); the returned stop ends it before the database closes.
 */
function startBackground(services: Services, meter: Meter): () => Promise<void> {
  const outbox = services.config.JOBS_ENABLED ? startOutbox({ services }) : undefined;
  const jobs = startJobs({ services });
  const backups = startBackups({ services, meter });
  return async () => {
    await jobs.stop();
    await backups.stop();
    await outbox?.stop();
  };
}

/** Stop accepting; requests in flight finish within `graceMs`, then the remaining connections close. */
function drain(server: Server, log: Logger, graceMs: number): Promise<void> {
  return new Promise<void>((resolveClose) => {
    const force = setTimeout(() => {
      log.warn({ graceMs }, 'grace period over: closing remaining connections');
      server.closeAllConnections();
    }, graceMs);
    force.unref();
    // close() stops accepting and (Node >= 19) drops idle keep-alive sockets; requests
    // in flight, streams included, run to completion.
    server.close(() => {
      clearTimeout(force);
      resolveClose();
    });
    server.closeIdleConnections();
  });
}

/** The public origin of the bound address (PORT=0 learns its port here). */
function originOf(server: Server, config: Config): string {
  const { port } = server.address() as AddressInfo;
  const host = config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST === '0.0.0.0' ? '127.0.0.1' : config.HOST;
  return `http://${host}:${port}`;
}

export async function createApp(config: Config, log: Logger): Promise<RunningApp> {
  const distDir = resolve(config.DIST_DIR);
  // The one registry of the process (src/features/metrics): every family and the process metrics.
  // Without METRICS_TOKEN no one can read it, so none is made and nothing is recorded (NO_METER).
  const metrics = config.METRICS_TOKEN === undefined ? undefined : createMetrics();
  const meter = metrics?.meter ?? NO_METER;
  const engine = engineOf(config.DATABASE_URL);
  // The clock scheduled articles are published by (src/features/news/schedule.ts): every instance
  // decides from the same build and this clock, so a fleet switches together.
  const offset = config.SITE_CLOCK_OFFSET_MS;
  const siteClock = offset === 0 ? Date.now : () => Date.now() + offset;
  const db = await openMigratedDb(config, {
    onQueryError: () => meter.count('db_errors_total', { engine }),
    onMigration: (result) => {
      if (result.status === 'Success') log.info({ migration: result.migrationName }, 'migration applied');
    },
  });
  const { astro, assistantIndex, statics } = await loadBuild(distDir, config, log, db, siteClock);
  const cache = new ResponseCache({ maxBytes: config.RESPONSE_CACHE_MAX_BYTES, maxTtlMs: CACHE_MAX_TTL_MS });

  // Set by listen(), synchronously in the bind callback, so before any request can arrive.
  let services: Services | undefined;
  let siteHost = '';
  // Nothing is allowed until the services exist (no request arrives before).
  let origins = originSettingsOf(undefined);
  const running = (): Services => {
    if (!services) throw new Error('the app is not listening yet');
    return services;
  };

  const limiter = createEdgeLimiter(config, log, { db, meter });
  if (metrics) registerCollectors(metrics, { db, cache, statics, limiter });
  const exposition = metricsExposition(metrics, config.METRICS_TOKEN, statics);
  const edge = createEdge({
    log,
    astro,
    endpointDeps: () => running(),
    statics,
    cache,
    limiter,
    clientKey: clientKeys(config),
    origins: () => origins,
    trustedProxy: (req) => isTrustedProxy(req.socket.remoteAddress, config.TRUST_PROXY),
    https: config.SITE_URL.startsWith('https:'),
    siteHost: () => siteHost,
    ready: readinessCheck(db, log),
    readyDetails: { database: db.engine },
    locals: (requestId, clientKey) => ({ services: running(), requestId, clientKey }),
    ...(metrics ? { observe: createRequestObserver(metrics, Object.keys(policiesFromConfig(config))) } : {}),
  });

  const { server } = edge;
  let stopBackground: (() => Promise<void>) | undefined;
  let closing: Promise<void> | undefined;
  return {
    listen: () =>
      new Promise((resolvePromise, reject) => {
        server.once('error', reject);
        server.listen(config.PORT, config.HOST, () => {
          server.off('error', reject);
          const origin = originOf(server, config);
          services = createServices({ config, boundOrigin: origin, db, log, assistantIndex: () => assistantIndex, cache, meter, exposition });
          siteHost = new URL(services.config.SITE_URL).host;
          origins = originSettingsOf(services.config);
          stopBackground = startBackground(services, meter);
          resolvePromise({ origin, services });
          warmUp(services).catch((error: unknown) => log.warn({ err: error }, 'warm-up failed'));
        });
      }),
    close: (graceMs = config.SHUTDOWN_GRACE_MS) =>
      (closing ??= (async () => {
        edge.startDraining();
        await drain(server, log, graceMs);
        await stopBackground?.();
        await limiter.close();
        await db.close();
        assistantIndex.close();
      })()),
  };
}
