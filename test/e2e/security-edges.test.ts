/**
 * Edges of the running server a security review found open: pages answering any method, a
 * readiness probe that ran a database query per request, and a client's X-Request-Id taken into
 * the logs. Over the real process (`node src/app/main.ts`) and the real build in ./dist.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../helpers/server.ts';

/** Every page of the build as its URL path (`news/a/index.html` -> `/news/a/`). */
function builtPages(dir = 'dist/client'): string[] {
  const pages: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.name.endsWith('.html')) pages.push(`/${relative(dir, path)}`.replace(/index\.html$/, '').replace(/\.html$/, ''));
    }
  };
  walk(dir);
  return pages;
}

const ID = /^[0-9a-f]{12}-[0-9a-z]+$/;

describe('the edges of the running server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ LOG_LEVEL: 'debug', RATE_LIMIT_SITE_MINUTE: '100000', RATE_LIMIT_PAGE_MINUTE: '100000' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers every page, prebuilt or rendered per request, with 405 and Allow: GET, HEAD for other methods', async () => {
    const pages = [...builtPages(), '/stats/', '/stats', '/stats/?startDate=2025-01-01&endDate=2025-01-31', '/no-such-page/', '/rss.xml', '/robots.txt'];
    expect(pages).toContain('/news/');
    const wrong: string[] = [];
    for (const path of pages) {
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
        const response = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, ...(method === 'OPTIONS' ? {} : { body: 'a=1' }) });
        const body = await response.text();
        const allow = response.headers.get('allow');
        const type = response.headers.get('content-type');
        if (response.status !== 405 || allow !== 'GET, HEAD' || type !== 'application/problem+json; charset=utf-8' || !body.includes('"code":"method_not_allowed"')) wrong.push(`${method} ${path}: ${response.status} allow=${allow} ${type}`);
      }
    }
    expect(wrong).toEqual([]);
    // GET and HEAD still answer the page.
    for (const method of ['GET', 'HEAD']) expect((await fetch(`${server.url}/stats/`, { method })).status).toBe(200);
  });

  it('answers a flood of readiness probes from one check a second at most', async () => {
    const checks = () => server.output.filter((line) => line.includes('"msg":"readiness checked"')).length;
    await fetch(`${server.url}/readyz`);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const before = checks();
    // A fixed number of probes, however long the machine takes to send them: at most one check
    // per second they spanned, plus the one that found no recent result.
    const started = performance.now();
    const statuses: number[] = [];
    for (let round = 0; round < 4; round += 1) {
      const batch = await Promise.all(Array.from({ length: 100 }, () => fetch(`${server.url}/readyz`).then(async (r) => (await r.arrayBuffer(), r.status))));
      statuses.push(...batch);
    }
    const spannedSeconds = Math.ceil((performance.now() - started) / 1_000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(checks() - before).toBeGreaterThanOrEqual(1);
    expect(checks() - before).toBeLessThanOrEqual(spannedSeconds + 1);
    expect(checks() - before).toBeLessThan(statuses.length / 10);
  });

  it("never takes a client's X-Request-Id into the logs when no proxy is trusted", async () => {
    const response = await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'forged-by-client' } });
    const id = response.headers.get('x-request-id');
    expect(id).toMatch(ID);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(server.output.some((line) => line.includes('forged-by-client'))).toBe(false);
    expect(server.output.some((line) => line.includes(`"reqId":"${id}"`))).toBe(true);
  });
});

describe('behind a trusted proxy', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer({ TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("takes the proxy's X-Request-Id when it is a sane token, and makes its own otherwise", async () => {
    expect((await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': '7c1f3e0a9b2d4c6e8f0a1b2c3d4e5f60' } })).headers.get('x-request-id')).toBe('7c1f3e0a9b2d4c6e8f0a1b2c3d4e5f60');
    expect((await fetch(`${server.url}/healthz`, { headers: { 'x-request-id': 'bad id <script>' } })).headers.get('x-request-id')).toMatch(ID);
  });
});
