/**
 * What routes and jobs may use at run time, built once by the server entry and handed to Astro
 * endpoints through `locals.services`. Features receive these as arguments; nothing here is a
 * module-level singleton, so tests build their own.
 */
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { DbHandle } from '../db/create-db.ts';

export interface Services {
  config: Config;
  db: DbHandle;
  log: Logger;
  /**
   * Drop cached GET responses whose path starts with `pathPrefix` (the edge's response cache).
   * Called by writers that change what a response would say, e.g. the stats materialiser.
   */
  purgeCache(pathPrefix: string): void;
}
