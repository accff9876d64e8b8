/**
 * What endpoints, pages and jobs may use at run time, built once by the server entry (and by
 * `astro dev`, src/app/dev-services.ts): the edge passes them to the route table's endpoints as
 * their deps, Astro pages get them through `locals.services`. Features declare the narrow part
 * they need; nothing here is a module-level singleton, so tests build their own.
 */
import type { Logger } from 'pino';
import { resolveOrigin, type Config } from './config.ts';
import type { DbHandle } from '../db/create-db.ts';
import type { AssistantIndex } from '../features/chat/assistant-index.ts';
import type { MetricsExposition } from '../features/metrics/metrics.endpoint.ts';
import { NO_METER, type Meter } from '../lib/meter.ts';

export interface Services {
  config: Config;
  db: DbHandle;
  log: Logger;
  /**
   * The site assistant's search index: in production the one `astro build` wrote, opened
   * read-only at start-up; under `astro dev`, built from the content collections on first use.
   */
  assistantIndex: () => AssistantIndex | Promise<AssistantIndex>;
  /**
   * Drop cached GET responses whose path starts with `pathPrefix` (the edge's response cache).
   * Called by writers that change what a response would say, e.g. the stats materializer.
   */
  purgeCache(pathPrefix: string): void;
  /** Where features count and time what they do (the metrics registry, or NO_METER). */
  meter: Meter;
  /** GET /metrics: the registry, the token's digest and the not-found answer; none under `astro dev`. */
  exposition?: MetricsExposition | undefined;
}

export interface ServiceParts {
  config: Config;
  /** The origin the server was bound to (`http://host:port`): a derived SITE_URL follows it. */
  boundOrigin: string;
  db: DbHandle;
  log: Logger;
  /** The assistant's index (see Services.assistantIndex). */
  assistantIndex: () => AssistantIndex | Promise<AssistantIndex>;
  /** The edge's response cache; none in `astro dev`, where purging is a no-op. */
  cache?: { purge(pathPrefix: string): number };
  /** The metrics registry's meter; NO_METER when absent. */
  meter?: Meter;
  exposition?: MetricsExposition;
}

/** The one way to assemble `Services`, shared by the production edge and the dev server. */
export function createServices({ config, boundOrigin, db, log, assistantIndex: knowledge, cache, meter = NO_METER, exposition }: ServiceParts): Services {
  return {
    meter,
    exposition,
    config: resolveOrigin(config, boundOrigin),
    db,
    log,
    assistantIndex: knowledge,
    purgeCache: (prefix) => {
      const dropped = cache?.purge(prefix) ?? 0;
      if (dropped > 0) log.debug({ prefix, dropped }, 'response cache purged');
    },
  };
}
