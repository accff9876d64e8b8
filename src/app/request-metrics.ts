/**
 * The request metrics: a `RequestObserver` (src/server/observation.ts) the edge calls once per
 * finished request, turned into the catalog's http_*, cache and rate-limit families. Labels are
 * taken only from the route table's names (anything else is `other`), the status class and the
 * edge's fixed outcomes, so no request text can mint a series.
 */
import type { Meter } from '../lib/meter.ts';
import type { RequestObservation, RequestObserver } from '../server/observation.ts';
import { ROUTE_NAMES } from '../server/routes.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);
const RATE_OUTCOMES = new Set(['allowed', 'refused', 'degraded']);
const CACHE_RESULTS = new Set(['hit', 'miss']);
/** `2xx`... by the first digit; 499 (client gone) is a 4xx, as nginx counts it. */
const STATUS_CLASSES = ['1xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

export function statusClassOf(status: number): string {
  return STATUS_CLASSES[Math.floor(status / 100)] ?? 'other';
}

export function createRequestObserver(meter: Meter, rateClasses: readonly string[]): RequestObserver {
  const routes = new Set(ROUTE_NAMES);
  const classes = new Set(rateClasses);
  return (o: RequestObservation) => {
    // Must not throw on the hot path: a label outside the fixed sets becomes `other`.
    try {
      const route = routes.has(o.route) ? o.route : 'other';
      const labels = { route, method: METHODS.has(o.method) ? o.method : 'other', status_class: statusClassOf(o.status) };
      meter.count('http_requests_total', labels);
      meter.observe('http_request_duration_seconds', o.durationSeconds, labels);
      if (o.bytesSent > 0) meter.count('http_response_body_bytes_total', { route }, o.bytesSent);
      if (CACHE_RESULTS.has(o.responseCache)) meter.count('http_response_cache_requests_total', { result: o.responseCache });
      if (CACHE_RESULTS.has(o.staticFile)) meter.count('http_static_cache_requests_total', { result: o.staticFile });
      const limit = o.rateLimit;
      if (limit !== undefined && RATE_OUTCOMES.has(limit.outcome)) {
        meter.count('ratelimit_decisions_total', { class: classes.has(limit.class) ? limit.class : 'other', outcome: limit.outcome });
      }
    } catch {
      // A metric is never worth a failed request; the catalog test catches a wrong name.
    }
  };
}
