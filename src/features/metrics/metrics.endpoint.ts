/**
 * `GET /metrics` as an endpoint (src/lib/endpoint.ts): the Prometheus text exposition, for a
 * scraper that sends `Authorization: Bearer <METRICS_TOKEN>` (RFC 6750 section 2.1). Without
 * the setting, or without the right token, or by any other method, the answer is the site's own
 * "not found" for an unknown path, so the public cannot tell the endpoint exists.
 *
 * The token is compared in constant time: both sides are hashed (SHA-256) first, so
 * `timingSafeEqual` compares equal lengths and neither the token's length nor a matching prefix
 * shows in the timing.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Endpoint, PlainRequest, PlainResponse } from '../../lib/endpoint.ts';
import type { Metrics } from './registry.server.ts';

/** What the endpoint needs; absent or without a token, it answers as an unknown path. */
export interface MetricsExposition {
  /** None when METRICS_TOKEN is unset: nothing is recorded then. */
  metrics: Pick<Metrics, 'scrape' | 'contentType'> | undefined;
  /** SHA-256 of METRICS_TOKEN (tokenDigest); undefined: the endpoint is off. */
  tokenDigest: Buffer | undefined;
  /** The answer an unknown path gets (the site's 404 page, in the coding the request accepts). */
  notFound: (request: PlainRequest) => Promise<PlainResponse>;
}

export interface MetricsDeps {
  /** None under `astro dev` and in tests that build services without it: always "not found". */
  exposition?: MetricsExposition | undefined;
}

export function tokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** `Bearer <token>`, the scheme case-insensitive (RFC 9110 section 11.1); undefined otherwise. */
function bearerOf(authorization: string | null): string | undefined {
  if (authorization === null) return undefined;
  const match = /^bearer +(\S+) *$/i.exec(authorization);
  return match?.[1];
}

export function authorized(authorization: string | null, expected: Buffer | undefined): boolean {
  const token = bearerOf(authorization);
  if (expected === undefined || token === undefined) return false;
  return timingSafeEqual(tokenDigest(token), expected);
}

const NOT_FOUND: PlainResponse = { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }, body: 'Not found' };

export const metricsEndpoint: Endpoint<MetricsDeps> = async (request, deps) => {
  const exposition = deps.exposition;
  if (exposition === undefined) return NOT_FOUND;
  const read = request.method === 'GET' || request.method === 'HEAD';
  const { metrics } = exposition;
  if (!read || metrics === undefined || !authorized(request.headers.get('authorization'), exposition.tokenDigest)) return exposition.notFound(request);
  const body = await metrics.scrape();
  return {
    status: 200,
    // no-store: never kept by the response cache or any proxy (RFC 9111 section 5.2.2.5).
    headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' },
    body: request.method === 'HEAD' ? null : body,
  };
};
