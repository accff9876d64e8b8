import { describe, expect, it } from 'vitest';
import { ENTRY_OVERHEAD_BYTES, MAX_ENTRY_BYTES, ResponseCache } from '../../../src/server/response-cache.ts';

const PUBLIC = { 'cache-control': 'public, max-age=30' };

describe('ResponseCache', () => {
  it('charges each entry its key bytes and overhead, and never holds more than its bound', () => {
    const maxBytes = 256 * 1024;
    const cache = new ResponseCache({ maxBytes, maxTtlMs: 60_000 });
    const longKey = (i: number) => `/stats?startDate=${i}${'j'.repeat(12_000)}`;
    for (let i = 0; i < 40; i++) cache.store(longKey(i), {}, 200, PUBLIC, Buffer.from('{}'));
    // A two-byte body under a 12 KB key costs more than 24 KB: at most ten such entries fit.
    expect(cache.size).toBeGreaterThan(0);
    expect(cache.size).toBeLessThanOrEqual(10);
    expect(cache.bytes).toBeLessThanOrEqual(maxBytes);
    expect(cache.bytes).toBeGreaterThanOrEqual(cache.size * (24_000 + ENTRY_OVERHEAD_BYTES));
  });

  it('stores a public response, replays only content headers, and purges by prefix', () => {
    const cache = new ResponseCache({ maxBytes: 1 << 20, maxTtlMs: 60_000 });
    const stored = cache.store('/api/v1/public/data?a=1', {}, 200, { 'content-type': 'application/json', ...PUBLIC, 'ratelimit-remaining': '7' }, Buffer.from('{"a":1}'));
    expect(stored?.etag).toMatch(/^"/);
    const hit = cache.get('/api/v1/public/data?a=1');
    expect(hit?.body.identity.toString()).toBe('{"a":1}');
    expect(hit?.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'public, max-age=30' });
    expect(hit?.headers).not.toHaveProperty('ratelimit-remaining');
    expect(cache.purge('/api/v1/public/')).toBe(1);
    expect(cache.get('/api/v1/public/data?a=1')).toBeUndefined();
  });

  it('does not store private, no-store, error, varying, cookie-setting, oversize or authorised responses', () => {
    const cache = new ResponseCache({ maxBytes: 4 << 20, maxTtlMs: 60_000 });
    for (const [key, status, cc] of [['/p', 200, 'private, max-age=60'], ['/n', 200, 'no-store'], ['/e', 400, 'public, max-age=60']] as const) {
      expect(cache.store(key, {}, status, { 'cache-control': cc }, Buffer.from('x'))).toBeUndefined();
    }
    expect(cache.store('/v', {}, 200, { ...PUBLIC, vary: 'Origin' }, Buffer.from('x'))).toBeUndefined();
    expect(cache.store('/c', {}, 200, { ...PUBLIC, 'set-cookie': 'a=b' }, Buffer.from('x'))).toBeUndefined();
    expect(cache.store('/big', {}, 200, PUBLIC, Buffer.alloc(MAX_ENTRY_BYTES + 1))).toBeUndefined();
    // RFC 9111 section 3.5: a shared cache stores an answer to an authorised request only when told it may.
    expect(cache.store('/a', { authorization: 'Bearer x' }, 200, { 'cache-control': 'max-age=60' }, Buffer.from('x'))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('judges each request by what it says, though a Cache-Control value is read once: an authorised or no-store request after a plain one is still not stored', () => {
    const cache = new ResponseCache({ maxBytes: 4 << 20, maxTtlMs: 60_000 });
    const cc = { 'cache-control': 'max-age=45' };
    expect(cache.store('/plain', {}, 200, cc, Buffer.from('x'))).toBeDefined();
    expect(cache.store('/auth', { authorization: 'Bearer x' }, 200, cc, Buffer.from('x'))).toBeUndefined();
    expect(cache.store('/nostore', { 'cache-control': 'no-store' }, 200, cc, Buffer.from('x'))).toBeUndefined();
    expect(cache.store('/expired', {}, 200, { 'cache-control': 'public', expires: 'Thu, 01 Jan 1970 00:00:00 GMT' }, Buffer.from('x'))).toBeUndefined();
    expect(cache.store('/again', {}, 200, cc, Buffer.from('x'))).toBeDefined();
    expect([cache.get('/plain'), cache.get('/again')].every(Boolean)).toBe(true);
    expect(cache.size).toBe(2);
  });
});
