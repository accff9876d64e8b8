/**
 * The request metrics: a `RequestObserver` (src/server/observation.ts) the edge calls once per
 * finished request, turned into the catalog's http_*, cache and rate-limit families. Labels are
 * taken only from the route table's names (anything else is `other`), the status class and the
 * edge's fixed outcomes, so no request text can mint a series.
 *
 * It runs on every request, the cached data answer's included (about 60 to 120 us of CPU): each
 * label combination's series are bound once (`Metrics.bind`) and found again through maps keyed
 * by the label values, so a request costs a few map lookups and additions, not the meter's
 * per-call checks of a label object (bench/NOTES.md, "Metrics cost").
 */
import type { Metrics, Series } from '../features/metrics/registry.server.ts';
import type { RequestObservation, RequestObserver } from '../server/observation.ts';
import { ROUTE_NAMES } from '../server/routes.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
const RATE_OUTCOMES = new Set(['allowed', 'refused', 'degraded']);
/** `2xx`... by the first digit; 499 (client gone) is a 4xx, as nginx counts it. */
const STATUS_CLASSES = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx'];
/** The slot of `other` in a route's and method's series, after the classes' own. */
const OTHER_CLASS = STATUS_CLASSES.length;

export function statusClassOf(status: number): string {
  return STATUS_CLASSES[Math.floor(status / 100)] ?? 'other';
}

/** The two families every request adds to, for one route, method and status class. */
interface RequestSeries {
  requests: Series;
  duration: Series;
}

/** `bind` deferred to the first record, so a series appears once something happened. */
function onFirstUse(bind: () => Series): Series {
  let series: Series | undefined;
  return (value) => (series ??= bind())(value);
}

/**
 * What is bound per pair of label values, found again by the values through nested maps: they
 * are the route table's and the fixed sets' own strings, whose hashes are cached, where a key
 * joined per request would be a new string to hash. The values must come from fixed sets only.
 */
class PerPair<T> {
  readonly #byFirst = new Map<string, Map<string, T>>();
  readonly #make: (first: string, second: string) => T;

  constructor(make: (first: string, second: string) => T) {
    this.#make = make;
  }

  get(first: string, second: string): T {
    let bySecond = this.#byFirst.get(first);
    if (bySecond === undefined) this.#byFirst.set(first, (bySecond = new Map()));
    let value = bySecond.get(second);
    if (value === undefined) bySecond.set(second, (value = this.#make(first, second)));
    return value;
  }
}

export function createRequestObserver(metrics: Pick<Metrics, 'bind'>, rateClasses: readonly string[]): RequestObserver {
  const routes = new Set(ROUTE_NAMES);
  const classes = new Set(rateClasses);
  /** Per route and method, the series of each status class by its first digit (`other` last), bound when first seen. */
  const requests = new PerPair<(RequestSeries | undefined)[]>(() => []);
  const bytes = new PerPair((route) => metrics.bind('http_response_body_bytes_total', { route }));
  const decisions = new PerPair((rateClass, outcome) => metrics.bind('ratelimit_decisions_total', { class: rateClass, outcome }));
  const results = new PerPair((name, result) => metrics.bind(name, { result }));
  const cacheHit = onFirstUse(() => results.get('http_response_cache_requests_total', 'hit'));
  const cacheMiss = onFirstUse(() => results.get('http_response_cache_requests_total', 'miss'));
  const staticHit = onFirstUse(() => results.get('http_static_cache_requests_total', 'hit'));
  const staticMiss = onFirstUse(() => results.get('http_static_cache_requests_total', 'miss'));

  function requestSeries(route: string, method: string, status: number): RequestSeries {
    const digit = Math.floor(status / 100);
    const slot = digit >= 0 && digit < OTHER_CLASS ? digit : OTHER_CLASS;
    const slots = requests.get(route, method);
    let series = slots[slot];
    if (series === undefined) {
      const labels = { route, method, status_class: statusClassOf(status) };
      slots[slot] = series = { requests: metrics.bind('http_requests_total', labels), duration: metrics.bind('http_request_duration_seconds', labels) };
    }
    return series;
  }

  return (o: RequestObservation) => {
    // Must not throw on the hot path: a label outside the fixed sets becomes `other`.
    try {
      const route = routes.has(o.route) ? o.route : 'other';
      const series = requestSeries(route, METHODS.has(o.method) ? o.method : 'other', o.status);
      series.requests(1);
      series.duration(o.durationSeconds);
      if (o.bytesSent > 0) bytes.get(route, '')(o.bytesSent);
      if (o.responseCache === 'hit') cacheHit(1);
      else if (o.responseCache === 'miss') cacheMiss(1);
      if (o.staticFile === 'hit') staticHit(1);
      else if (o.staticFile === 'miss') staticMiss(1);
      const limit = o.rateLimit;
      if (limit !== undefined && RATE_OUTCOMES.has(limit.outcome)) decisions.get(classes.has(limit.class) ? limit.class : 'other', limit.outcome)(1);
    } catch {
      // A metric is never worth a failed request; the catalog test catches a wrong name.
    }
  };
}
