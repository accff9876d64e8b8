import { describe, expect, it } from 'vitest';
import { ENTRY_OVERHEAD_BYTES, ResponseCache } from '../../../src/server/response-cache.ts';
import { roundTrip } from '../../helpers/round-trip.ts';

describe('ResponseCache', () => {
  it('charges each entry its key bytes and overhead, and never holds more than its bound', async () => {
    const maxBytes = 256 * 1024;
    const cache = new ResponseCache({ maxBytes, maxTtlMs: 60_000 });
    const longKey = (i: number) => `/stats?startDate=${i}${'j'.repeat(12_000)}`;
    for (let i = 0; i < 40; i++) {
      const { server } = await roundTrip((req, res) => {
        cache.capture(longKey(i), req, res);
        res.setHeader('cache-control', 'public, max-age=30');
        res.end('{}');
      });
      server();
    }
    await new Promise((r) => setTimeout(r, 20));
    // A two-byte body under a 12 KB key costs more than 24 KB: at most ten such entries fit.
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    expect(cache.bytes).toBeGreaterThanOrEqual(cache.size * (24_000 + ENTRY_OVERHEAD_BYTES));
  });

  it('stores a public response, replays only content headers, and purges by prefix', async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxTtlMs: 60_000 });
    const { server } = await roundTrip((req, res) => {
      cache.capture('/api/v1/public/data?a=1', req, res);
      res.setHeader('content-type', 'application/json');
      res.setHeader('cache-control', 'public, max-age=30');
      res.setHeader('ratelimit-remaining', '7');
      res.write('{"a":');
      res.end('1}');
    });
    server();
    await new Promise((r) => setTimeout(r, 20));
    const hit = cache.get('/api/v1/public/data?a=1');
    expect(hit?.body.identity.toString()).toBe('{"a":1}');
    expect(hit?.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'public, max-age=30' });
    expect(hit?.headers).not.toHaveProperty('ratelimit-remaining');
    expect(cache.purge('/api/v1/public/')).toBe(1);
    expect(cache.get('/api/v1/public/data?a=1')).toBeUndefined();
  });

  it('does not store private, no-store or error responses', async () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxTtlMs: 60_000 });
    for (const [key, status, cc] of [['/p', 200, 'private, max-age=60'], ['/n', 200, 'no-store'], ['/e', 400, 'public, max-age=60']] as const) {
      const { server } = await roundTrip((req, res) => {
        cache.capture(key, req, res);
        res.statusCode = status;
        res.setHeader('cache-control', cc);
        res.end('x');
      });
      server();
    }
    await new Promise((r) => setTimeout(r, 20));
    expect(cache.size).toBe(0);
  });
});
