/**
 * The metrics as the composition root assembles them: the one registry (features/metrics), its
 * scrape-time readings of what the edge and the database hold, the request observer the edge
 * calls, and what GET /metrics needs (the token's digest and an unknown path's 404).
 */
import { buffer } from 'node:stream/consumers';
import type { Readable } from 'node:stream';
import type { DbHandle } from '../db/create-db.ts';
import { outboxBacklog } from '../features/contact/outbox-backlog.server.ts';
import { tokenDigest, type MetricsExposition } from '../features/metrics/metrics.endpoint.ts';
import type { Metrics } from '../features/metrics/registry.server.ts';
import { statsFreshness } from '../features/stats/freshness.server.ts';
import type { PlainRequest, PlainResponse } from '../lib/endpoint.ts';
import { variantEtag } from '../lib/http-validators.ts';
import type { ResponseCache } from '../server/response-cache.ts';
import type { StaticFiles } from '../server/static-files.ts';

/** A scrape's database readings wait at most this long (the collector's own bound is 2 s). */
const QUERY_DEADLINE_MS = 1_500;

export interface CollectedParts {
  db: DbHandle;
  cache: Pick<ResponseCache, 'bytes' | 'size'>;
  statics: Pick<StaticFiles, 'bytes'>;
  limiter: { readonly degraded: boolean };
  now?: () => number;
}

/** The gauges read at scrape time, each a collector of its own (one failing leaves the others). */
export function registerCollectors(metrics: Metrics, { db, cache, statics, limiter, now = Date.now }: CollectedParts): void {
  metrics.collect('memory', (meter) => {
    meter.set('http_response_cache_bytes', cache.bytes);
    meter.set('http_response_cache_entries', cache.size);
    meter.set('http_static_cache_bytes', statics.bytes);
    meter.set('ratelimit_degraded', limiter.degraded ? 1 : 0);
  });
  metrics.collect('contact_outbox', async (meter) => {
    const backlog = await db.within(QUERY_DEADLINE_MS, (kysely) => outboxBacklog(kysely, now()));
    meter.set('contact_outbox_pending', backlog.pending);
    meter.set('contact_outbox_oldest_pending_age_seconds', backlog.oldestAgeSeconds);
  });
  metrics.collect('stats', async (meter) => {
    const fresh = await db.within(QUERY_DEADLINE_MS, (kysely) => statsFreshness(kysely, now()));
    // Before the first materialization the gauge reads 0 (1970): "stale" alerts fire, as they should.
    meter.set('stats_last_materialization_timestamp_seconds', (fresh.lastMaterializedAt ?? 0) / 1000);
    meter.set('stats_last_settled_day_timestamp_seconds', (fresh.lastSettledDayStart ?? 0) / 1000);
  });
}

const FALLBACK_404 = '<!doctype html><title>Not found</title><h1>Not found</h1><p><a href="/">Home</a></p>';

/**
 * The answer of an unknown page path, as the edge sends it (src/server/http.ts callAstro): the
 * built 404 page with no-store, in the coding the client accepts, with the same validators.
 */
export function notFoundPage(statics: StaticFiles): (request: PlainRequest) => Promise<PlainResponse> {
  const page = statics.get('/404.html');
  return async (request) => {
    if (page === undefined) return { status: 404, headers: { 'content-type': 'text/html; charset=utf-8' }, body: FALLBACK_404 };
    const encoding = statics.codingFor(page, request.headers.get('accept-encoding') ?? undefined);
    const body = encoding === undefined ? page.identity : page[encoding]!;
    const headers: Record<string, string> = { 'content-type': page.contentType, 'cache-control': 'no-store', etag: variantEtag(page.etag, encoding), vary: 'Accept-Encoding' };
    if (encoding !== undefined) headers['content-encoding'] = encoding;
    if (request.method === 'HEAD') return { status: 404, headers, body: null };
    const bytes = statics.cached(body) ?? (await statics.read(body));
    return { status: 404, headers, body: Buffer.isBuffer(bytes) ? bytes : await buffer(bytes as Readable) };
  };
}

/** What GET /metrics needs; without a registry or a token it answers every request as an unknown path. */
export function metricsExposition(metrics: Metrics | undefined, token: string | undefined, statics: StaticFiles): MetricsExposition {
  return { metrics, tokenDigest: metrics === undefined || token === undefined ? undefined : tokenDigest(token), notFound: notFoundPage(statics) };
}
