/**
 * Calling an endpoint (src/lib/endpoint.ts) directly with a Fetch Request, as the Astro adapter
 * does under `astro dev`: the body read once within the route's limit, the route's deadline from
 * now, the answer as a Fetch Response. Tests of a feature's logic use this; tests of the edge's
 * policies go through the edge itself.
 */
import { callOverFetch, type Endpoint, type EndpointLimits } from '../../src/lib/endpoint.ts';
import { routeOf } from '../../src/server/routes.ts';

const DEFAULT_LIMITS: EndpointLimits = { bodyLimit: 64 * 1024, deadlineMs: 4_000 };

/** The methods the route table declares for the endpoint at the request's path (the caller's 405 and HEAD), as under `astro dev`. */
function declaredMethods(endpoint: Endpoint<never>, request: Request): EndpointLimits['methods'] {
  const route = routeOf(new URL(request.url).pathname);
  return route.endpoint === endpoint ? route.methods : undefined;
}

export function callEndpoint<Deps>(endpoint: Endpoint<Deps>, request: Request, deps: Deps, limits: Partial<EndpointLimits> = {}): Promise<Response> {
  return callOverFetch(endpoint, request, deps, { ...DEFAULT_LIMITS, methods: declaredMethods(endpoint as Endpoint<never>, request), ...limits });
}
