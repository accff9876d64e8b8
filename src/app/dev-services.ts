/**
 * `astro dev` with the services the production edge builds (src/app/app.ts), so an editor
 * previews every page and a developer calls every API on the dev server: the same configuration
 * (loadConfig), SQLite location check, migrated database and `createServices`, built once per dev
 * server by the integration in dev-integration.ts and handed to Astro as `locals`.
 *
 * What the edge adds in front of Astro is not here: no rate limits (and no RateLimit-* headers),
 * no response cache (`purgeCache` is a no-op), no body-size limits or strict query check at the
 * edge, no scheduled jobs (run `npm run seed` or `npm run stats:materialize` for data). /healthz
 * and /readyz answer as the edge does.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig, secretValues } from './config.ts';
import { prepareDatabaseLocation } from './database-location.ts';
import { createServices, type Services } from './services.ts';
import { openMigratedDb } from '../db/open-migrated-db.ts';
import { clientKeyOf, isTrustedProxy } from '../features/ratelimit/index.ts';
import { PATHS } from '../lib/paths.ts';
import { answerProbe, recentCheck, requestIdOf } from '../lib/probes.ts';
import { createLogger } from '../server/log.ts';

/**
 * Where Astro's dev server looks for a request's `locals` on the Node request (its Node adapter
 * hands them over the same way; astro/dist/core/constants.js `clientLocalsSymbol`).
 */
const ASTRO_LOCALS = Symbol.for('astro.locals');

export interface DevServices {
  services: Services;
  /** Connect middleware: answer the probes, or attach `locals` and pass the request on to Astro. */
  middleware(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void;
  close(): Promise<void>;
}

/**
 * Build the services for a dev server bound to `address`. The origin is spelled `localhost` for
 * a loopback or wildcard address, so a derived ALLOWED_ORIGINS admits both `localhost` and
 * `127.0.0.1` pages (config.ts `defaultOrigins`), whichever the developer's browser opened.
 */
export async function openDevServices(address: AddressInfo, assistantIndex: Services['assistantIndex'], env: NodeJS.ProcessEnv = process.env): Promise<DevServices> {
  const config = loadConfig(env);
  prepareDatabaseLocation(config.DATABASE_URL);
  const log = createLogger({ level: config.LOG_LEVEL, secrets: secretValues(config) });
  const db = await openMigratedDb(config, {
    onMigration: (result) => {
      if (result.status === 'Success') log.info({ migration: result.migrationName }, 'migration applied');
    },
  });
  const local = /^(127\.|::1$|::$|0\.0\.0\.0$|::ffff:127\.)/.test(address.address);
  const host = local ? 'localhost' : address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const services = createServices({ config, boundOrigin: `http://${host}:${address.port}`, db, log, assistantIndex });
  log.info({ url: services.config.SITE_URL, database: db.target }, 'dev services ready');

  // As in production (src/app/app.ts): one check a second at most, a failure logged once per check.
  const ready = recentCheck(() =>
    db.ping().catch((error: unknown) => {
      log.warn({ err: error }, 'readiness check failed');
      throw error;
    }),
  );
  async function probe(res: ServerResponse, path: string): Promise<void> {
    const answer = await answerProbe(path, ready, { database: db.engine });
    res.writeHead(answer.status, answer.headers).end(answer.body);
  }


  return {
    services,
    middleware(req, res, next) {
      const path = new URL(req.url ?? '/', 'http://dev').pathname;
      if (path === PATHS.healthz || path === PATHS.readyz) {
        probe(res, path).catch(next);
        return;
      }
      const locals: App.Locals = {
        services,
        requestId: requestIdOf(isTrustedProxy(req.socket.remoteAddress, services.config.TRUST_PROXY) ? req.headers['x-request-id'] : undefined),
        clientKey: clientKeyOf(req.socket.remoteAddress, req.headers, services.config.TRUST_PROXY, services.config.RATE_LIMIT_IPV6_PREFIX),
      };
      Reflect.set(req, ASTRO_LOCALS, locals);
      next();
    },
    close: () => db.close(),
  };
}
