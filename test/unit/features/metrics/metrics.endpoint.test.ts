import { describe, expect, it } from 'vitest';
import type { PlainRequest } from '../../../../src/lib/endpoint.ts';
import { authorized, metricsEndpoint, tokenDigest, type MetricsExposition } from '../../../../src/features/metrics/metrics.endpoint.ts';

const TOKEN = 'a'.repeat(24) + '0123456789abcdef';

function request(method: string, authorization?: string): PlainRequest {
  const headers = new Headers(authorization === undefined ? {} : { authorization });
  return { method, url: new URL('http://site.test/metrics'), headers, body: undefined, deadline: Date.now() + 1000, signal: new AbortController().signal };
}

const exposition = (token: string | undefined): MetricsExposition => ({
  metrics: { contentType: 'text/plain; version=0.0.4; charset=utf-8', scrape: async () => '# HELP up x\n' },
  tokenDigest: token === undefined ? undefined : tokenDigest(token),
  notFound: async () => ({ status: 404, headers: { 'content-type': 'text/html' }, body: 'the 404 page' }),
});

describe('GET /metrics', () => {
  it('answers the exposition to the bearer of the token, never to be stored', async () => {
    const answer = await metricsEndpoint(request('GET', `Bearer ${TOKEN}`), { exposition: exposition(TOKEN) });
    expect(answer).toEqual({ status: 200, headers: { 'content-type': 'text/plain; version=0.0.4; charset=utf-8', 'cache-control': 'no-store' }, body: '# HELP up x\n' });
    expect((await metricsEndpoint(request('GET', `bearer ${TOKEN}`), { exposition: exposition(TOKEN) })).status).toBe(200);
  });

  it.each([
    ['no Authorization', undefined],
    ['another token', `Bearer ${TOKEN.slice(0, -1)}x`],
    ['a prefix of the token', `Bearer ${TOKEN.slice(0, 10)}`],
    ['the token with a suffix', `Bearer ${TOKEN}x`],
    ['another scheme', `Basic ${TOKEN}`],
    ['the bare token', TOKEN],
  ])('answers the unknown-path 404 to %s', async (_, authorization) => {
    expect(await metricsEndpoint(request('GET', authorization), { exposition: exposition(TOKEN) })).toEqual({ status: 404, headers: { 'content-type': 'text/html' }, body: 'the 404 page' });
  });

  it('answers 404 to every request when METRICS_TOKEN is unset, and to other methods', async () => {
    expect((await metricsEndpoint(request('GET', `Bearer ${TOKEN}`), { exposition: exposition(undefined) })).status).toBe(404);
    expect((await metricsEndpoint(request('DELETE', `Bearer ${TOKEN}`), { exposition: exposition(TOKEN) })).status).toBe(404);
    expect((await metricsEndpoint(request('GET', `Bearer ${TOKEN}`), {})).status).toBe(404);
  });

  it('compares digests, so tokens of any length compare without throwing', () => {
    expect(authorized(`Bearer ${TOKEN}`, tokenDigest(TOKEN))).toBe(true);
    expect(authorized('Bearer x', tokenDigest(TOKEN))).toBe(false);
    expect(authorized(null, tokenDigest(TOKEN))).toBe(false);
    expect(authorized(`Bearer ${TOKEN}`, undefined)).toBe(false);
  });
});
