/**
 * The one route table of the edge. Each public path is declared once, with every policy the edge
 * applies to it: which interface (and so which error format), CORS, CSP, body limit, deadline,
 * rate class, which query parameters select a cached response, and the feature endpoint that
 * answers it (src/lib/endpoint.ts). Every policy reads its answer from the `Route` that `routeOf`
 * returns for the request's one normalised path (request-target.ts), so two spellings of one
 * resource cannot get two policies.
 *
 * Paths without an endpoint are pages, prebuilt files and Astro's own: the edge serves the files
 * and hands the rest to Astro's handler.
 */
import type { CorsPolicy } from '../lib/cors-decision.ts';
import { interfaceOf, type ApiInterface } from '../lib/http-error.ts';
import type { Endpoint } from '../lib/endpoint.ts';
import type { Method } from '../lib/methods.ts';
import { PATHS } from '../lib/paths.ts';
import type { RateClass } from '../lib/rate-class.ts';
import { chatEndpoint, type ChatDeps } from '../features/chat/chat.endpoint.ts';
import { CHAT_LIMITS } from '../features/chat/chat-request.ts';
import { CHAT_ORIGIN_GATE } from '../features/chat/origin-policy.ts';
import { challengeEndpoint, type ChallengeDeps } from '../features/contact/altcha.server.ts';
import { CONTACT_LIMITS } from '../features/contact/contact-limits.ts';
import { contactEndpoint, type ContactDeps } from '../features/contact/contact.endpoint.ts';
import { dataEndpoint, type DataDeps } from '../features/stats/data.endpoint.ts';
import { DATE_RANGE_PARAMETERS } from '../features/stats/date-range.ts';
import { metricsEndpoint, type MetricsDeps } from '../features/metrics/metrics.endpoint.ts';
import { actionEndpoint, signOutEndpoint } from '../features/console/actions.endpoint.ts';
import { enrolEndpoint, enrolOptionsEndpoint, signInEndpoint, signInOptionsEndpoint } from '../features/console/ceremony.endpoint.ts';
import type { ConsoleDeps } from '../features/console/console-deps.ts';

export type { RateClass };

/**
 * Everything the bound endpoints need, each feature's own narrow dependencies together: the
 * composition root's services satisfy it (a type error there names what is missing).
 */
export type EndpointDeps = ChatDeps & ChallengeDeps & ContactDeps & DataDeps & MetricsDeps & ConsoleDeps;

export interface Route {
  /** The canonical path of the resource; spellings with a trailing slash share it (cache key, purge). */
  path: string;
  /** Whose error format and headers the responses use (docs/interface.md section 5). */
  interface: ApiInterface;
  /**
   * `api`: JSON resources (locked-down CSP); `page`: documents (page CSP); `probe`: /healthz and
   * /readyz (never limited or cached); `hidden`: framework internals that are not served in
   * production (Astro's `/_image` endpoint: no page uses it, and it answered unlimited 500s).
   */
  kind: 'api' | 'page' | 'probe' | 'hidden';
  /** Who may call it across origins, judged once per request by the edge (src/lib/cors-decision.ts). */
  cors: CorsPolicy;
  /** Largest request body accepted, in bytes (413 past it, read once by the edge). */
  bodyLimit: number;
  /**
   * How long the answer may take, in ms from the request's arrival: the endpoint's one deadline
   * (PlainRequest.deadline), inside the 5 s the interfaces promise (docs/interface.md section 3),
   * with room left to send the answer.
   */
  deadlineMs: number;
  /** The feature endpoint that answers this path; none: a page or a file. */
  endpoint?: Endpoint<EndpointDeps> | undefined;
  /**
   * The methods the resource answers (HEAD comes with GET, answered by the edge from the GET);
   * any other gets 405 with `Allow` from the edge (src/lib/methods.ts). Undefined: the catch-all
   * routes, which answer 404 to every method.
   */
  methods?: readonly Method[] | undefined;
  /** The name observations carry (src/server/observation.ts): the path of a declared route, `other` for the catch-alls. */
  name: string;
  /**
   * The rate class a request spends, by method and by whether a prebuilt file answers it
   * (`prebuilt`, false when unknown); null: not limited.
   */
  rate: (method: string, prebuilt?: boolean) => RateClass | null;
  /**
   * Only prebuilt files are served here: a path the static manifest does not list is answered
   * 404 by the edge and never reaches Astro.
   */
  prebuiltOnly: boolean;
  /**
   * The query parameters that select the response, in key order. The cache key holds only these,
   * so junk parameters cannot mint new entries.
   */
  query: readonly string[];
  /**
   * The handler refuses any other parameter (the data interface's 400 SVC1005): such a request is
   * never answered from the cache, so the refusal is the same hit or miss.
   */
  strictQuery: boolean;
  /**
   * The access log's level for this route's requests: `debug` keeps a scraper's request every
   * few seconds out of the info-level log.
   */
  accessLog: 'info' | 'debug';
}

const KiB = 1024;
/** Body limit of routes that take no body worth the name (a stray POST to a page). */
const SMALL_BODY = 64 * KiB;
const DEADLINE_MS = 4_000;

/** Documents and read resources: GET, and HEAD with it. */
const READ: readonly Method[] = ['GET'];

const always =
  (rateClass: RateClass | null) =>
  (): RateClass | null =>
    rateClass;
/** POST spends the write's own windows; a CORS preflight or another method only the site's. */
const writes =
  (rateClass: RateClass) =>
  (method: string): RateClass =>
    method === 'POST' ? rateClass : 'site';

function route(path: string, init: Partial<Omit<Route, 'path' | 'interface'>> & Pick<Route, 'kind'>): Route {
  return {
    path,
    name: 'other',
    interface: interfaceOf(path),
    cors: 'none',
    bodyLimit: SMALL_BODY,
    deadlineMs: DEADLINE_MS,
    rate: always(init.kind === 'page' ? 'page' : 'site'),
    query: [],
    strictQuery: false,
    accessLog: 'info',
    prebuiltOnly: false,
    ...init,
  };
}

const readApi = (path: string) => route(path, { kind: 'api', cors: 'public', methods: READ });

/** Exact paths. */
const EXACT = new Map<string, Route>(
  [
    readApi(PATHS.news),
    readApi(PATHS.sellers),
    readApi(PATHS.openapi),
    route(PATHS.contact, { kind: 'api', cors: 'origins', methods: ['POST'], bodyLimit: CONTACT_LIMITS.bodyBytes, rate: writes('contact'), endpoint: contactEndpoint }),
    // Fetched by the contact page on load: the site's class, never cached (no-store).
    route(PATHS.contactChallenge, { kind: 'api', cors: 'origins', methods: READ, endpoint: challengeEndpoint }),
    // Allowed callers only; OPTIONS: the CORS preflight of the chat widget on a partner's page, answered by the edge.
    route(PATHS.chat, { kind: 'api', cors: CHAT_ORIGIN_GATE, methods: ['OPTIONS', 'POST'], bodyLimit: CHAT_LIMITS.maxBodyBytes, rate: writes('chat'), endpoint: chatEndpoint }),
    // Every response of the data interface carries its own rate-limit headers, whatever the method.
    route(PATHS.data, { kind: 'api', cors: 'public', methods: READ, rate: always('data'), query: DATE_RANGE_PARAMETERS, strictQuery: true, endpoint: dataEndpoint }),
    route(PATHS.healthz, { kind: 'probe', methods: READ, rate: always(null) }),
    route(PATHS.readyz, { kind: 'probe', methods: READ, rate: always(null) }),
    // A page to the public (its 404 is an unknown page's: same security headers, same body), the
    // exposition to a scraper with the token. Never limited: a scrape must not spend or be
    // refused by a client budget; never cached (no-store); logged at debug.
    route(PATHS.metrics, { kind: 'page', methods: READ, rate: always(null), accessLog: 'debug', endpoint: metricsEndpoint }),
    // Rendered per request from the same records as the data API; reads the same two parameters.
    route(PATHS.stats, { kind: 'page', methods: READ, query: DATE_RANGE_PARAMETERS }),
    // The console's passkey ceremonies spend the sign-in class; its form actions the site's.
    route(PATHS.consoleSignInOptions, { kind: 'api', methods: ['POST'], rate: writes('sign-in'), endpoint: signInOptionsEndpoint }),
    route(PATHS.consoleSignIn, { kind: 'api', methods: ['POST'], rate: writes('sign-in'), endpoint: signInEndpoint }),
    route(PATHS.consoleEnrolOptions, { kind: 'api', methods: ['POST'], rate: writes('sign-in'), endpoint: enrolOptionsEndpoint }),
    route(PATHS.consoleEnrol, { kind: 'api', methods: ['POST'], rate: writes('sign-in'), endpoint: enrolEndpoint }),
    route(PATHS.consoleSignOut, { kind: 'api', methods: ['POST'], endpoint: signOutEndpoint }),
    route(PATHS.consoleAction, { kind: 'api', methods: ['POST'], endpoint: actionEndpoint }),
  ].map((r) => [r.path, { ...r, name: r.path }]),
);

/** Every declared route, for tests and documents that walk the table. */
export const DECLARED_ROUTES: readonly Route[] = [...EXACT.values()];

/** Everything else under the data prefix: the data interface's 404s and 405s, in its format. */
const DATA_OTHER = route(PATHS.dataPrefix, { kind: 'api', cors: 'public', rate: always('data') });
/** Any other `/api/...`: site-interface 404s. */
const API_OTHER = route('/api', { kind: 'api', cors: 'origins' });
const HIDDEN = route('/_image', { kind: 'hidden', rate: always('page') });
/**
 * Hashed build assets: immutable, fetched once per visitor, a fixed set served from the manifest.
 * A hit is not limited (that would only slow pages); a miss spends the page class and is answered
 * 404 by the edge: unlimited misses went to Astro, and a flood of long ones grew the process by
 * 200 MB (issue 31).
 */
const ASSET = route('/_astro', { kind: 'page', methods: READ, prebuiltOnly: true, rate: (_method, prebuilt) => (prebuilt === true ? null : 'page') });
/** Documents, prebuilt or rendered per request: GET and HEAD only (RFC 9110 section 15.5.6), refused before Astro renders a whole page for a POST. */
const PAGE = route('/', { kind: 'page', methods: READ });
/** The console's pages: per operator and no-store, never answered from the response cache. */
const CONSOLE = route(PATHS.console, { kind: 'page', methods: READ });

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/**
 * The names observations carry for declared routes (their paths): the values the request
 * metrics' `route` label may take, besides `other` for every catch-all (pages, assets, unknown
 * paths), so the label's values are this fixed list however many paths clients invent.
 */
export const ROUTE_NAMES: readonly string[] = [...EXACT.keys()];

/** The route of a normalised path (request-target.ts); a trailing slash does not change it. */
export function routeOf(pathname: string): Route {
  const path = pathname.length > 1 && pathname.endsWith('/') ? pathname.slice(0, -1) : pathname;
  const exact = EXACT.get(path);
  if (exact) return exact;
  if (under(path, PATHS.dataPrefix)) return DATA_OTHER;
  if (under(path, '/api')) return API_OTHER;
  if (under(path, '/_astro')) return ASSET;
  if (under(path, PATHS.console)) return CONSOLE;
  // Astro's internal endpoints (`/_image`, `/_server-islands`, `/_actions`): none is used here.
  if (path.startsWith('/_')) return HIDDEN;
  return PAGE;
}

/**
 * The response-cache key of a GET: the route's canonical path and only the parameters it reads,
 * in the route's order (`?endDate=b&startDate=a&utm=x` and `?startDate=a&endDate=b` share one
 * entry). Undefined when the request must not be answered from the cache: on a strict route, a
 * parameter the handler refuses or one given twice.
 */
export function cacheKeyOf(route: Route, pathname: string, params: URLSearchParams): string | undefined {
  if (route === CONSOLE) return undefined;
  // Declared paths key by their canonical spelling, so a purge by path finds every variant.
  const path = EXACT.get(route.path) === route ? route.path : pathname;
  if (route.strictQuery) {
    let count = 0;
    for (const name of params.keys()) {
      if (!route.query.includes(name)) return undefined;
      count++;
    }
    if (count > route.query.length) return undefined;
  }
  let key = path;
  let separator = '?';
  for (const name of route.query) {
    const value = params.get(name);
    if (value === null) continue;
    key += `${separator}${encodeURIComponent(name)}=${encodeURIComponent(value)}`;
    separator = '&';
  }
  return key;
}
