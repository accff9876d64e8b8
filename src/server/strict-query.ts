/**
 * A strict route's query string (the route table's `strictQuery`), read once per distinct target:
 * the parameters the handler would refuse, and the response-cache key it selects.
 */
import { unknownParameters } from '../lib/query-params.ts';
import type { RequestTarget } from './request-target.ts';
import { cacheKeyOf, type Route } from './routes.ts';

/** What a strict route's query string means: refused parameters, or the cache key it selects. */
export interface StrictQuery {
  unknown: string | undefined;
  cacheKey: string | undefined;
}
/** Readings by normalised target: clients repeat the same few ranges, so each is parsed once. */
const strictQueries = new Map<string, StrictQuery>();
const STRICT_QUERIES_MAX = 1024;
/** Longer targets are read each time: the memo stays under 256 KiB of keys. */
const STRICT_QUERY_MAX_CHARS = 256;

export function readStrictQuery(route: Route, url: RequestTarget): StrictQuery {
  const target = `${url.pathname}${url.search}`;
  let reading = strictQueries.get(target);
  if (reading === undefined) {
    reading = { unknown: unknownParameters(url.searchParams, route.query), cacheKey: cacheKeyOf(route, url.pathname, url.searchParams) };
    if (target.length <= STRICT_QUERY_MAX_CHARS) {
      // Bounded against clients that send a new query each time: start over when full.
      if (strictQueries.size >= STRICT_QUERIES_MAX) strictQueries.clear();
      strictQueries.set(target, reading);
    }
  }
  return reading;
}
