/**
 * Calling an endpoint (src/lib/endpoint.ts) directly with a Fetch Request, as the Astro adapter
 * does under `astro dev`: the route's CORS decision, the body read once within the route's limit,
 * the route's deadline from now, the answer as a Fetch Response. Tests of a feature's logic use this; tests of the edge's
 * policies go through the edge itself.
 */
import { callOverFetch, type Endpoint, type EndpointLimits } from '../../src/lib/endpoint.ts';
import { originSettingsOf } from '../../src/lib/cors-decision.ts';
import { routeOf } from '../../src/server/routes.ts';

const DEFAULT_LIMITS: EndpointLimits = { bodyLimit: 64 * 1024, deadlineMs: 4_000 };

/** What the route table declares for the endpoint at the request's path (the caller's 405, HEAD and strict query), as under `astro dev`. */
function declared(endpoint: Endpoint<never>, request: Request): Partial<EndpointLimits> {
  const route = routeOf(new URL(request.url).pathname);
  return route.endpoint === endpoint ? { methods: route.methods, query: route.query, strictQuery: route.strictQuery, cors: route.cors } : {};
}

/** The route's CORS policy is judged with the origin settings of the deps' configuration, as the server's. */
export function callEndpoint<Deps>(endpoint: Endpoint<Deps>, request: Request, deps: Deps, limits: Partial<EndpointLimits> = {}): Promise<Response> {
  const { config } = deps as { config?: Parameters<typeof originSettingsOf>[0] };
  return callOverFetch(endpoint, request, deps, { ...DEFAULT_LIMITS, ...declared(endpoint as Endpoint<never>, request), ...limits }, originSettingsOf(config));
}
