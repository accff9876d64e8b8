import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

describe('the server process', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers liveness and readiness as JSON', async () => {
    const live = await fetch(`${server.url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'sqlite' });
  });

  it("sends its own request id, whatever the client sent (no proxy is trusted)", async () => {
    const given = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    const generated = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'bad id\u00e9'.replace('\u00e9', '') + ' <script>' } });
    // A new id: the process's random prefix and a counter, so two are never the same.
    const id = generated.headers.get('x-request-id');
    expect(id).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    const next = (await fetch(`${server.url}/healthz`)).headers.get('x-request-id');
    expect(next).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    expect(next).not.toBe(id);
    expect(next!.split('-')[0]).toBe(id!.split('-')[0]);
  });

  it('sets the security headers on pages and on APIs', async () => {
    for (const path of ['/', '/api/news', '/healthz', '/api/nope']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('content-security-policy'), path).toContain("frame-ancestors 'none'");
    }
  });

  it('keeps both the page CSP (hashes) and the edge CSP on a page rendered per request, fresh and from cache', async () => {
    for (const round of ['fresh', 'cached']) {
      const res = await fetch(`${server.url}/stats/`);
      expect(res.status, round).toBe(200);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp, round).toMatch(/script-src 'self' 'sha256-/);
      expect(csp, round).toContain("frame-ancestors 'none'");
      expect(csp, round).not.toContain('unsafe-inline');
    }
  });

  it('serves prebuilt pages with an ETag and answers 304 to a matching If-None-Match', async () => {
    const first = await fetch(`${server.url}/`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const again = await fetch(`${server.url}/`, { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('answers HEAD for a prebuilt file with headers and no body', async () => {
    const res = await fetch(`${server.url}/api/news`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Number(res.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await res.text()).toBe('');
  });

  it('serves prebuilt files whatever the query string, and refuses other methods with 405', async () => {
    expect((await fetch(`${server.url}/api/news?cache-buster=1`)).status).toBe(200);
    const page = await fetch(`${server.url}/?utm_source=newsletter`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const post = await fetch(`${server.url}/api/news`, { method: 'POST', body: '{}' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toMatchObject({ status: 405, code: 'method_not_allowed' });
  });

  it('gives each encoding its own strong ETag and revalidates any of them', async () => {
    const br = await fetch(`${server.url}/api/news`, { headers: { 'accept-encoding': 'br' } });
    const plain = await fetch(`${server.url}/api/news`, { headers: { 'accept-encoding': 'identity' } });
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(br.headers.get('etag')).not.toBe(plain.headers.get('etag'));
    expect(br.headers.get('etag')).toBe(plain.headers.get('etag')!.replace(/"$/, '-br"'));
    const again = await fetch(`${server.url}/api/news`, { headers: { 'accept-encoding': 'identity', 'if-none-match': br.headers.get('etag')! } });
    expect(again.status).toBe(304);
  });

  it('accepts an absolute-form request target (RFC 9112 section 3.2.2)', async () => {
    const { status } = await rawRequest(server.url, `${server.url}/api/news`);
    expect(status).toBe(200);
  });

  it('gives unknown API paths a 404 problem and unknown pages the 404 page', async () => {
    expect((await fetch(`${server.url}/api`)).headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    const api = await fetch(`${server.url}/api/does-not-exist`);
    expect(api.status).toBe(404);
    expect(api.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
    expect(await api.json()).toEqual({ type: 'about:blank', title: 'Not found', status: 404, code: 'not_found', detail: 'No API resource at /api/does-not-exist.', resolution: 'Check the path against the documentation.' });
    const page = await fetch(`${server.url}/no/such/page`);
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  });

  it('refuses a request target that is not a path with a 400 problem', async () => {
    const { status } = await rawRequest(server.url, '*', { method: 'OPTIONS' });
    expect(status).toBe(400);
  });

  it('logs each request as a JSON line carrying its request id', async () => {
    const id = (await fetch(`${server.url}/healthz`)).headers.get('x-request-id');
    await new Promise((r) => setTimeout(r, 100));
    const line = server.output.find((l) => l.includes(`"reqId":"${id}"`));
    expect(line).toBeDefined();
    expect(JSON.parse(line!)).toMatchObject({ level: 'info', method: 'GET', path: '/healthz', status: 200, msg: 'request' });
  });
});

describe('start-up and shutdown', () => {
  it('refuses to start on a bad variable, naming it', async () => {
    await expect(startServer({ PORT: 'eighty' })).rejects.toThrow(/exited with 78[\s\S]*PORT: must be a port number/);
  });

  it('lets a request in flight finish after SIGTERM, then exits 0', async () => {
    const server = await startServer();
    const port = Number(new URL(server.url).port);
    // Headers now, body later: the request is in flight when the signal arrives.
    const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/api/does-not-exist', method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '2' } }, (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.flushHeaders();
      setTimeout(() => {
        server.child.kill('SIGTERM');
        setTimeout(() => req.end('{}'), 300);
      }, 200);
    });
    const { status, body } = await response;
    expect(status).toBe(404);
    expect(JSON.parse(body)).toMatchObject({ code: 'not_found' });
    expect(await server.exited).toBe(0);
    expect(server.output.some((l) => l.includes('"msg":"stopped"'))).toBe(true);
  });
});
