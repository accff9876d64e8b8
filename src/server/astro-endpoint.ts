/**
 * The one adapter every Astro API route is: under `astro dev` (which has no edge) the route file
 * is `export const ALL = astroEndpoint(PATHS.x)`, and the endpoint the route table binds to that
 * path answers, with the same body limit, deadline and CORS decision the edge applies. In the built server the
 * edge calls the endpoint itself and these routes are never reached.
 */
import type { APIRoute } from 'astro';
import { originSettingsOf } from '../lib/cors-decision.ts';
import { callOverFetch } from '../lib/endpoint.ts';
import { routeOf } from './routes.ts';

export function astroEndpoint(path: string): APIRoute {
  const route = routeOf(path);
  const { endpoint } = route;
  if (!endpoint || route.path !== path) throw new Error(`The route table binds no endpoint to ${path}.`);
  return ({ request, locals }) => callOverFetch(endpoint, request, locals.services, route, originSettingsOf(locals.services.config));
}
