import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readBody } from '../../../src/server/body.ts';
import { HttpError, renderError, toHttpError } from '../../../src/lib/http-error.ts';
import { ENTRY_OVERHEAD_BYTES, ResponseCache } from '../../../src/server/response-cache.ts';

import { acceptedEncodings, negotiate, storeBody } from '../../../src/server/content-coding.ts';
import { cacheControlFor } from '../../../src/server/static-manifest.ts';

describe('problem rendering', () => {
  it('renders site errors as RFC 9457 problem details with the spec fields', () => {
    const error = new HttpError(400, 'validation_failed', { detail: 'name is required', extensions: { errors: [{ field: 'name' }] }, headers: { 'x-a': '1' } });
    const { status, headers, body } = renderError(error, '/api/contact');
    expect(status).toBe(400);
    expect(headers).toEqual({ 'x-a': '1', 'content-type': 'application/problem+json; charset=utf-8', 'cache-control': 'no-store' });
    expect(JSON.parse(body)).toEqual({ type: 'about:blank', title: 'Invalid request', status: 400, code: 'validation_failed', detail: 'name is required', errors: [{ field: 'name' }] });
  });

  it('renders data-interface errors as {code, message}', () => {
    const { body, headers } = renderError(new HttpError(400, 'SVC1005', { detail: 'endDate is before startDate' }), '/api/v1/public/data');
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(body)).toEqual({ code: 'SVC1005', message: 'endDate is before startDate' });
  });

  it('turns unknown exceptions into an opaque 500 without internals', () => {
    const { status, body } = renderError(toHttpError(new Error('SELECT * FROM secret failed at /srv/app.ts:12')), '/api/news');
    expect(status).toBe(500);
    expect(body).not.toContain('secret');
    expect(JSON.parse(body)).toEqual({ type: 'about:blank', title: 'Internal server error', status: 500, code: 'internal_error' });
  });
});

describe('static file helpers', () => {
  it('gives hashed assets a year, pages revalidation, and the read APIs short lifetimes', () => {
    expect(cacheControlFor('/_astro/app.Ab12.js')).toBe('public, max-age=31536000, immutable');
    expect(cacheControlFor('/news/index.html')).toBe('public, max-age=0, must-revalidate');
    expect(cacheControlFor('/sellers.json')).toBe('public, max-age=3600, s-maxage=3600');
    expect(cacheControlFor('/api/news')).toMatch(/^public, max-age=60/);
  });

  it('pre-compresses text and picks the encoding the client accepts', () => {
    const text = Buffer.from('hello world '.repeat(500));
    const body = storeBody(text, 'text/html; charset=utf-8');
    const br = negotiate(body, 'gzip, deflate, br');
    expect(br.encoding).toBe('br');
    expect(brotliDecompressSync(br.bytes).equals(text)).toBe(true);
    const gz = negotiate(body, 'gzip');
    expect(gz.encoding).toBe('gzip');
    expect(gunzipSync(gz.bytes).equals(text)).toBe(true);
    expect(negotiate(body, undefined)).toEqual({ bytes: text });
    expect(storeBody(Buffer.from('tiny'), 'text/plain').br).toBeUndefined();
  });

  it('weighs Accept-Encoding by q-value, with q=0 refusing a coding and * standing for the rest', () => {
    const body = storeBody(Buffer.from('x'.repeat(5000)), 'text/plain');
    expect(acceptedEncodings('gzip;q=0.5, BR;q=0.1')).toEqual(new Map([['gzip', 0.5], ['br', 0.1]]));
    expect(negotiate(body, 'gzip;q=0.5, br;q=0.1').encoding).toBe('gzip');
    expect(negotiate(body, 'br;q=0, gzip').encoding).toBe('gzip');
    expect(negotiate(body, 'gzip;q=0, identity').encoding).toBeUndefined();
    expect(negotiate(body, '*').encoding).toBe('br');
    expect(negotiate(body, '*, br;q=0').encoding).toBe('gzip');
  });
});

/** Run one handler on a real socket and return what the client saw. */
async function roundTrip(handler: (req: IncomingMessage, res: ServerResponse) => void, body?: Buffer | string, path = '/x'): Promise<{ status: number; text: string; server: () => void }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = request({ port, host: '127.0.0.1', path, method: body === undefined ? 'GET' : 'POST' }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, server: () => server.close() }));
    });
    req.on('error', (error) => {
      server.close();
      reject(error);
    });
    req.end(body);
  });
}


describe('readBody', () => {
  it('returns the bytes of a body within the limit', async () => {
    const { text, server } = await roundTrip(async (req, res) => res.end(String((await readBody(req, 10)).length)), 'abcdef');
    server();
    expect(text).toBe('6');
  });

  it('refuses with 413 once the stream crosses the limit, without waiting for the rest', async () => {
    const { text, status, server } = await roundTrip(async (req, res) => {
      try {
        await readBody(req, 1024);
        res.end('read');
      } catch (error) {
        res.statusCode = (error as HttpError).status;
        res.setHeader('connection', 'close');
        res.end((error as HttpError).code);
      }
    }, Buffer.alloc(200_000, 'x'));
    server();
    expect(status).toBe(413);
    expect(text).toBe('payload_too_large');
  });
});

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
