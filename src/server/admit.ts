/**
 * The pipeline's first stage: the policies every request passes before any work, each judged
 * here once from the route table: a known method, CORS (its headers first; a gated route's refusal
 * or preflight after the method check), the rate limit (a refused request costs
 * no body, database or assistant), hidden paths, the route's methods (405 with Allow), and the
 * strict query, which also gives the response-cache key. Returns the refusal, or nothing.
 */
import { judgeCors, type CorsDecision } from '../lib/cors-decision.ts';
import { HttpError } from '../lib/http-error.ts';
import { answers, KNOWN_METHODS, methodNotAllowed, type Method } from '../lib/methods.ts';
import { unknownParametersError } from '../lib/query-params.ts';
import type { EdgeDeps, LimitOutcome } from './edge-deps.ts';
import type { EdgeParts, Exchange } from './exchange.ts';
import { errorAnswer, type PlainAnswer } from './respond.ts';
import { cacheKeyOf, type Route } from './routes.ts';
import { readStrictQuery } from './strict-query.ts';

/** A prebuilt file is a read resource, whatever route it lies under. */
const FILE_METHODS: readonly Method[] = ['GET'];

/** The request's one CORS decision (src/lib/cors-decision.ts): its headers go on every response. */
function corsOf(deps: EdgeDeps, x: Exchange): CorsDecision {
  const { route, head } = x;
  const decision = judgeCors(route.cors, x.method, route.methods, x.req.headers.origin, deps.origins());
  const { headers } = decision;
  for (const name in headers) head.push(name, headers[name]!);
  return decision;
}

/**
 * The limiter's refusals as answers, rendered once per route: the limiter hands out one error
 * per window and wait (src/app/edge-limiter.ts), and a client over its limit keeps asking. An
 * edge answer is never changed after it is made (http.ts, respond.ts), so one can be sent again.
 */
const renderedRefusals = new WeakMap<HttpError, { route: Route; answer: PlainAnswer }>();

function refusalAnswer(route: Route, error: HttpError): PlainAnswer {
  const rendered = renderedRefusals.get(error);
  if (rendered?.route === route) return rendered.answer;
  const answer = errorAnswer(route, error);
  renderedRefusals.set(error, { route, answer });
  return answer;
}

/** The refusal, or nothing: the request may be answered. */
export type Admission = PlainAnswer | undefined;

/** The admission, at once unless the limiter has to ask a shared store (then its promise). */
export function admit({ deps }: EdgeParts, x: Exchange): Admission | Promise<Admission> {
  const { req, method, route } = x;
  const { limiter } = deps;
  // TRACE, CONNECT and inventions: refused here, before the rate limit and before the Fetch
  // Request Astro builds (which cannot represent some of them) turns them into a 500.
  if (!KNOWN_METHODS.has(method)) return errorAnswer(route, methodNotAllowed(method, route.methods));
  const cors = corsOf(deps, x);
  // Prebuilt files answer whatever the query string (?utm_source=… on a page, a cache-buster on
  // /api/news), like any static server.
  const { pathname } = x.url;
  const statics = deps.statics;
  x.file = x.refused ? undefined : (statics.get(pathname) ?? (pathname.length > 1 && pathname.endsWith('/') ? statics.get(pathname.slice(0, -1)) : undefined));
  x.rateClass = limiter ? route.rate(method, x.file !== undefined) : null;
  if (!limiter || !x.rateClass) return afterLimit(x, cors, undefined);
  const checked = limiter.check(x.rateClass, x.clientKey, req.headers);
  return checked instanceof Promise ? checked.then((outcome) => afterLimit(x, cors, outcome)) : afterLimit(x, cors, checked);
}

/** The policies after the rate limit: its refusal and headers, a refused target, hidden paths, methods, CORS's refusal or preflight, the strict query. */
function afterLimit(x: Exchange, cors: CorsDecision, outcome: LimitOutcome | undefined): Admission {
  const { method, route, head } = x;
  if (outcome) {
    x.limit = outcome;
    for (const name in outcome.headers) head.push(name, outcome.headers[name]!);
    if (outcome.refused) return refusalAnswer(route, outcome.refused);
  }
  const { pathname } = x.url;
  if (x.refused) return errorAnswer(route, x.refused);
  if (route.kind === 'hidden' || (route.prebuiltOnly && !x.file)) return errorAnswer(route, new HttpError('not_found', { detail: `Nothing is served at ${pathname}.` }));
  const methods = x.file ? FILE_METHODS : route.methods;
  if (!answers(methods, method)) return errorAnswer(route, methodNotAllowed(method, methods));
  // A gated route's caller refused, or its preflight answered, before the body is read.
  if (cors.refusal) return errorAnswer(route, cors.refusal);
  // Written as an endpoint's answer would be: a 204 has no body and no Content-Length (RFC 9110 section 8.6).
  if (cors.preflight) return { kind: 'plain', response: { status: 204, headers: { ...cors.preflight }, body: null }, edge: false };
  // Probes are never cached: each answer is the service's state now.
  if (x.file || route.kind === 'probe' || (method !== 'GET' && method !== 'HEAD')) return undefined;
  if (!route.strictQuery) {
    x.cacheKey = cacheKeyOf(route, pathname, x.url.searchParams);
    return undefined;
  }
  // Refused here, before any handler: the route table declares what the endpoint accepts, and
  // a flood of junk parameters then costs nothing more (each one copied a 12 KB URL many times).
  const strict = readStrictQuery(route, x.url);
  x.cacheKey = strict.cacheKey;
  if (!strict.unknown) return undefined;
  return errorAnswer(route, unknownParametersError(route.path, strict.unknown, route.query));
}
