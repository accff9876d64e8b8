/**
 * The edge in-process: request in, response out through `createEdge(...).onRequest`, with no port
 * and no build (light-my-request drives node's own IncomingMessage/ServerResponse). What is
 * checked is what the route table declares for each path: rate limits and their headers, CORS,
 * security headers, body limits, the response cache and its 304s, strict queries, pages' methods,
 * and that each endpoint is called with the body read once and answers through the edge, streams
 * included. Real parts behind it: a migrated SQLite file, the memory rate-limit store, prebuilt
 * files written and precompressed as the build does.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject, type Response as Injected } from 'light-my-request';
import { pino } from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/app/config.ts';
import { createEdgeLimiter } from '../../../src/app/edge-limiter.ts';
import { createServices, type Services } from '../../../src/app/services.ts';
import { openMigratedDb } from '../../../src/db/open-migrated-db.ts';
import type { DbHandle } from '../../../src/db/create-db.ts';
import { AssistantIndex } from '../../../src/features/chat/assistant-index.ts';
import { EXPOSED_HEADERS } from '../../../src/lib/cors.ts';
import { originSettingsOf } from '../../../src/lib/cors-decision.ts';
import { PATHS } from '../../../src/lib/paths.ts';
import { createEdge, type AstroHandler, type Edge } from '../../../src/server/http.ts';
import { precompress } from '../../../src/server/precompress.ts';
import { ResponseCache } from '../../../src/server/response-cache.ts';
import { allowOf } from '../../../src/lib/methods.ts';
import type { RequestObservation, RequestObserver } from '../../../src/server/observation.ts';
import { DECLARED_ROUTES, routeOf } from '../../../src/server/routes.ts';
import { StaticFiles } from '../../../src/server/static-files.ts';
import { STATIC_MANIFEST_PATH } from '../../../src/server/static-manifest.ts';

const SITE = 'http://site.test';
const PARTNER = 'https://partner.test';
const DAY = '2026-03-02';

let dir: string;
let db: DbHandle;
let services: Services;
let statics: StaticFiles;
/** What the stand-in for Astro's handler was asked, so a test can tell who answered. */
let astroCalls: string[];

/** Stands in for Astro's handler: one page rendered per request, a 404 for the rest. */
const astro: AstroHandler = (req: IncomingMessage, res: ServerResponse, next) => {
  astroCalls.push(`${req.method} ${req.url}`);
  if (req.url?.startsWith(PATHS.stats)) {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'public, max-age=30' }).end('<!doctype html><title>Stats</title>');
    return;
  }
  next();
};

function edgeWith(env: Record<string, string> = {}, observe?: RequestObserver): Edge {
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', SITE_URL: SITE, ALLOWED_ORIGINS: `${SITE},${PARTNER}`, ...env });
  const log = pino({ level: 'silent' });
  const limiter = createEdgeLimiter(config, log);
  const running = { ...services, config: { ...services.config, ...config } };
  return createEdge({
    log,
    astro,
    statics,
    cache: new ResponseCache({ maxBytes: 1 << 20, maxTtlMs: 60_000 }),
    limiter,
    endpointDeps: () => running,
    origins: () => originSettingsOf(config),
    https: false,
    siteHost: () => 'site.test',
    ready: async () => {},
    readyDetails: { database: 'sqlite' },
    locals: (requestId, clientKey) => ({ services: running, requestId, clientKey }),
    ...(observe ? { observe } : {}),
  });
}

/**
 * A request whose target reaches the edge exactly as written, as node's HTTP parser hands it over
 * (light-my-request resolves `\`, dot segments and `//` with the URL parser first).
 */
const callRaw = (edge: Edge, target: string, options: Exclude<Parameters<typeof inject>[1], string> = {}): Promise<Injected> =>
  inject(
    (req, res) => {
      req.url = target;
      edge.onRequest(req, res);
    },
    { url: '/', ...options },
  );

const call = (edge: Edge, options: Parameters<typeof inject>[1]): Promise<Injected> => inject(edge.onRequest, options);
const problemOf = (response: Injected) => response.json() as { code: string; status?: number; title?: string; message?: string };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'edge-'));
  const client = join(dir, 'client');
  mkdirSync(join(client, 'api'), { recursive: true });
  writeFileSync(join(client, 'index.html'), `<!doctype html><title>Home</title>${'<p>About sellers.json and ads.txt.</p>'.repeat(80)}`);
  writeFileSync(join(client, '404.html'), '<!doctype html><title>Not found</title>');
  writeFileSync(join(client, 'api', 'news'), JSON.stringify([{ id: 'first', title: 'First' }]));
  mkdirSync(join(client, '_astro'));
  writeFileSync(join(client, '_astro', 'app.abc123.js'), 'console.log("app");');
  mkdirSync(join(dir, 'server'));
  await precompress(client, join(dir, STATIC_MANIFEST_PATH));
  statics = await StaticFiles.load(dir, { maxBytes: 1 << 20, log: pino({ level: 'silent' }) });

  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: join(dir, 'site.db') });
  db = await openMigratedDb(config);
  await db.kysely.insertInto('daily_stat').values({ day: DAY, txn_count: 7, impr_count: 700, revenue_minor: 70, materialized_at: Date.parse('2026-03-03T00:00:00Z') }).execute();
  const index = AssistantIndex.fromCorpus({ news: [], knowledge: [{ id: 'sellers-json', title: 'sellers.json', body: 'A sellers.json file lists the sellers an ad system pays, published at /sellers.json.' }] });
  services = createServices({ config, boundOrigin: SITE, db, log: pino({ level: 'silent' }), assistantIndex: () => index });
});

afterAll(async () => {
  await db?.close();
  rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  astroCalls = [];
});

describe('the edge in-process: policies from the route table', () => {
  it('sends the security headers and a request id on every answer, API and page alike', async () => {
    const edge = edgeWith();
    for (const url of [PATHS.news, '/']) {
      const response = await call(edge, { url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(response.headers['content-security-policy']).toBeTruthy();
      expect(response.headers['x-request-id']).toMatch(/\S/);
    }
  });

  it('counts a public read against its rate class, says so in the headers, and refuses past the limit in the interface format', async () => {
    const edge = edgeWith({ RATE_LIMIT_SITE_MINUTE: '2' });
    const first = await call(edge, { url: PATHS.news });
    expect(first.headers['ratelimit-limit']).toBe('2');
    expect(first.headers['ratelimit-remaining']).toBe('1');
    await call(edge, { url: PATHS.news });
    const refused = await call(edge, { url: PATHS.news });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(problemOf(refused).code).toBe('rate_limited');
  });

  it('answers the data interface with its own limit headers and {code, message} errors, whatever the method', async () => {
    const edge = edgeWith({ RATE_LIMIT_DATA_MINUTE: '1' });
    const ok = await call(edge, { url: `${PATHS.data}?startDate=${DAY}&endDate=${DAY}` });
    expect(ok.statusCode).toBe(200);
    expect(ok.headers['x-ratelimit-remaining']).toBeDefined();
    const refused = await call(edge, { url: `${PATHS.data}?startDate=${DAY}&endDate=${DAY}`, method: 'POST' });
    expect(refused.statusCode).toBe(429);
    expect(Object.keys(problemOf(refused)).sort()).toEqual(['code', 'message']);
  });

  it('grants CORS by the route: any origin may read public resources, only allowed origins may write', async () => {
    const edge = edgeWith();
    const read = await call(edge, { url: PATHS.news, headers: { origin: 'https://anyone.test' } });
    expect(read.headers['access-control-allow-origin']).toBe('*');
    const allowed = await call(edge, { url: PATHS.chat, method: 'OPTIONS', headers: { origin: PARTNER, 'access-control-request-method': 'POST' } });
    expect(allowed.statusCode).toBe(204);
    expect(allowed.headers['access-control-allow-origin']).toBe(PARTNER);
    const foreign = await call(edge, { url: PATHS.chat, method: 'OPTIONS', headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' } });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  describe("the chat's origin gate, judged by the edge", () => {
    const chatPost = (edge: Edge, headers: Record<string, string>, payload = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })) =>
      call(edge, { url: PATHS.chat, method: 'POST', headers: { 'content-type': 'application/json', ...headers }, payload });
    /** Everything a refusal's head says about CORS and its format. */
    const refusalHead = (response: Injected) => ({
      status: response.statusCode,
      type: response.headers['content-type'],
      vary: response.headers.vary,
      grants: Object.keys(response.headers).filter((name) => name.startsWith('access-control-allow')),
    });
    const refusedHead = { status: 403, type: 'application/problem+json; charset=utf-8', vary: 'Origin', grants: [] };

    it('answers the preflight of an allowed origin with 204 and what it may send, without a body', async () => {
      const response = await call(edgeWith(), { url: PATHS.chat, method: 'OPTIONS', headers: { origin: PARTNER, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
      expect(response.statusCode).toBe(204);
      expect(response.body).toBe('');
      expect(response.headers['content-length']).toBeUndefined();
      expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
      const cors = Object.fromEntries(Object.entries(response.headers).filter(([name]) => name.startsWith('access-control-') || name === 'allow' || name === 'vary'));
      expect(cors).toEqual({
        'access-control-allow-origin': PARTNER,
        'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type',
        'access-control-max-age': '600',
        allow: 'OPTIONS, POST',
        vary: 'Origin',
      });
    });

    it('answers an OPTIONS without Origin with Allow only, and a foreign preflight with the 403 problem', async () => {
      const edge = edgeWith();
      const plain = await call(edge, { url: PATHS.chat, method: 'OPTIONS' });
      expect([plain.statusCode, plain.headers.allow, plain.headers['access-control-allow-origin']]).toEqual([204, 'OPTIONS, POST', undefined]);
      const foreign = await call(edge, { url: PATHS.chat, method: 'OPTIONS', headers: { origin: 'https://evil.test', 'access-control-request-method': 'POST' } });
      expect(refusalHead(foreign)).toEqual(refusedHead);
      expect(problemOf(foreign).code).toBe('origin_not_allowed');
    });

    it('refuses a POST from a foreign origin with the same problem the endpoint gave, before reading the body', async () => {
      const edge = edgeWith();
      const foreign = await chatPost(edge, { origin: 'https://evil.test' });
      expect(refusalHead(foreign)).toEqual(refusedHead);
      expect(foreign.json()).toEqual({
        type: 'about:blank',
        title: 'Origin not allowed',
        status: 403,
        code: 'origin_not_allowed',
        detail: 'The origin https://evil.test may not call the assistant.',
        resolution: 'Call it from a page of this site, or ask the operator to add your origin to ALLOWED_ORIGINS.',
      });
      // Neither a body that is no JSON nor one past the route's limit gets further than the origin.
      expect((await chatPost(edge, { origin: 'https://evil.test', 'content-type': 'text/plain' }, 'not json')).statusCode).toBe(403);
      const over = await chatPost(edge, { origin: 'https://evil.test' }, 'x'.repeat(routeOf(PATHS.chat).bodyLimit + 1));
      expect([over.statusCode, problemOf(over).code]).toEqual([403, 'origin_not_allowed']);
    });

    it('refuses a POST without Origin unless CHAT_ALLOW_NO_ORIGIN is set', async () => {
      const missing = await chatPost(edgeWith(), {});
      expect(refusalHead(missing)).toEqual(refusedHead);
      expect(missing.json()).toMatchObject({ code: 'origin_not_allowed', detail: 'The request has no Origin header; the assistant only answers pages of this site and the origins its operator allows.' });
      const allowed = await chatPost(edgeWith({ CHAT_ALLOW_NO_ORIGIN: 'true' }), {});
      expect(allowed.statusCode).toBe(200);
      expect(allowed.headers['access-control-allow-origin']).toBeUndefined();
      // Still only listed origins: the setting lets in callers without one, not every one.
      expect((await chatPost(edgeWith({ CHAT_ALLOW_NO_ORIGIN: 'true' }), { origin: 'https://evil.test' })).statusCode).toBe(403);
    });

    it('gives an allowed origin its CORS headers on the streamed reply', async () => {
      const response = await chatPost(edgeWith(), { origin: PARTNER });
      expect(response.statusCode).toBe(200);
      expect([response.headers['access-control-allow-origin'], response.headers.vary]).toEqual([PARTNER, 'Origin']);
    });
  });

  it("refuses a body past the route's limit with 413 before the endpoint runs, and stores one within it", async () => {
    const edge = edgeWith();
    const limit = routeOf(PATHS.contact).bodyLimit;
    const headers = { 'content-type': 'application/json', origin: SITE };
    const over = await call(edge, { url: PATHS.contact, method: 'POST', headers, payload: `{"name":"${'x'.repeat(limit)}"}` });
    expect(over.statusCode).toBe(413);
    expect(problemOf(over).code).toBe('payload_too_large');
    const fits = JSON.stringify({ name: 'Ada Lovelace', job_title: 'Analyst', work_email: 'ada@example.com', priority: 'high', message: 'We would like to talk about header bidding.' });
    const accepted = await call(edge, { url: PATHS.contact, method: 'POST', headers, payload: fits });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ success: true });
    expect(astroCalls).toEqual([]);
  });

  it('keeps a data answer in the response cache, serves it again, and answers its ETag with a bodiless 304', async () => {
    const edge = edgeWith();
    const url = `${PATHS.data}?startDate=${DAY}&endDate=${DAY}`;
    const first = await call(edge, { url });
    expect(first.json()).toEqual({ status: 'Success', data: [expect.objectContaining({ date: DAY, txn_count: 7 })] });
    await db.kysely.updateTable('daily_stat').set({ txn_count: 8 }).where('day', '=', DAY).execute();
    // Same key, parameters in another order and a junk one the route does not read: the cached bytes.
    const again = await call(edge, { url: `${PATHS.data}?endDate=${DAY}&startDate=${DAY}` });
    expect(again.body).toBe(first.body);
    const notModified = await call(edge, { url, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    await db.kysely.updateTable('daily_stat').set({ txn_count: 7 }).where('day', '=', DAY).execute();
  });

  it('refuses a parameter the data endpoint does not take, before the endpoint or the cache', async () => {
    const response = await call(edgeWith(), { url: `${PATHS.data}?startDate=${DAY}&endDate=${DAY}&limit=5` });
    expect(response.statusCode).toBe(400);
    expect(problemOf(response).code).toBe('SVC1005');
  });

  it('serves prebuilt files with validators and 304s, and refuses other methods on pages with Allow', async () => {
    const edge = edgeWith();
    const home = await call(edge, { url: '/', headers: { 'accept-encoding': 'br' } });
    expect(home.headers['content-encoding']).toBe('br');
    const again = await call(edge, { url: '/', headers: { 'accept-encoding': 'br', 'if-none-match': String(home.headers.etag) } });
    expect(again.statusCode).toBe(304);
    const post = await call(edge, { url: '/', method: 'POST', payload: 'x' });
    expect(post.statusCode).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
  });

  it('hands pages without a prebuilt file to Astro, and an unknown API path gets the site 404 problem', async () => {
    const edge = edgeWith();
    const stats = await call(edge, { url: `${PATHS.stats}?utm_source=x` });
    expect(stats.statusCode).toBe(200);
    expect(astroCalls).toEqual([`GET ${PATHS.stats}?utm_source=x`]);
    const missing = await call(edge, { url: '/api/nothing-here' });
    expect(missing.statusCode).toBe(404);
    expect(problemOf(missing).code).toBe('not_found');
  });

  it('streams the chat endpoint through the edge as text/plain without a Content-Length', async () => {
    const response = await call(edgeWith(), {
      url: PATHS.chat,
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: SITE },
      payload: JSON.stringify({ messages: [{ role: 'user', content: 'What is sellers.json?' }] }),
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(response.headers['content-length']).toBeUndefined();
    expect(response.body).toMatch(/sellers/i);
    expect(response.headers['ratelimit-policy']).toBeDefined();
  });
});

/** An observer that records, and a wait for the next `count` observations (event-driven: observations come at `close`). */
function recorder() {
  const seen: RequestObservation[] = [];
  let waiting: { count: number; resolve: () => void } | undefined;
  const observe: RequestObserver = (observation) => {
    seen.push(observation);
    if (waiting && seen.length >= waiting.count) waiting.resolve();
  };
  const until = (count: number) => (seen.length >= count ? Promise.resolve() : new Promise<void>((resolve) => (waiting = { count, resolve })));
  return { seen, observe, until };
}

const RANGE = `${PATHS.data}?startDate=${DAY}&endDate=${DAY}`;
/** A path each declared route answers GET (or its first method) on, with the query it needs. */
const pathOf = (path: string) => (path === PATHS.data || path === PATHS.stats ? `${path}?startDate=${DAY}&endDate=${DAY}` : path);
const CONTENT_HEADERS = ['content-type', 'cache-control', 'etag', 'x-data-settled-through', 'x-data-missing-days', 'content-length'];

describe('the pipeline: the stage after the answer', () => {
  it("answers a cached request with exactly the endpoint's answer, and says which was which", async () => {
    const { seen, observe, until } = recorder();
    const edge = edgeWith({}, observe);
    const miss = await call(edge, { url: RANGE });
    const hit = await call(edge, { url: RANGE });
    await until(2);
    expect(hit.statusCode).toBe(miss.statusCode);
    expect(hit.body).toBe(miss.body);
    for (const name of CONTENT_HEADERS) expect(hit.headers[name], name).toBe(miss.headers[name]);
    expect(seen.map((o) => o.responseCache)).toEqual(['miss', 'hit']);
  });

  it('answers the first request for an encoding it negotiates as every later one: the same coding, Vary, ETag and bytes', async () => {
    // A month of rows: an answer large enough to be worth compressing (content-coding.ts).
    const days = Array.from({ length: 31 }, (_, i) => `2025-01-${String(i + 1).padStart(2, '0')}`);
    await db.kysely.insertInto('daily_stat').values(days.map((day, i) => ({ day, txn_count: i, impr_count: 100 * i, revenue_minor: 7 * i, materialized_at: Date.parse('2025-02-01T00:00:00Z') }))).execute();
    const url = `${PATHS.data}?startDate=${days[0]}&endDate=${days.at(-1)}`;
    for (const accept of ['gzip', 'br, gzip', 'identity']) {
      const { seen, observe, until } = recorder();
      const edge = edgeWith({}, observe);
      const headers = { 'accept-encoding': accept };
      const miss = await call(edge, { url, headers });
      const hit = await call(edge, { url, headers });
      await until(2);
      expect(seen.map((o) => o.responseCache), accept).toEqual(['miss', 'hit']);
      expect(miss.headers.vary, accept).toBe('Accept-Encoding');
      for (const name of ['content-encoding', 'content-length', 'etag', 'vary', ...CONTENT_HEADERS]) expect(miss.headers[name], `${accept}: ${name}`).toBe(hit.headers[name]);
      expect(miss.rawPayload.equals(hit.rawPayload), accept).toBe(true);
      if (accept !== 'identity') expect(miss.headers['content-encoding'], accept).toBe(accept.split(',')[0]);
    }
  });

  it('gives a 304 its day unit back, whether the cache or the endpoint answered it', async () => {
    const env = { RATE_LIMIT_DATA_DAY: '10' };
    const first = await call(edgeWith(env), { url: RANGE });
    const etag = String(first.headers.etag);
    for (const warm of [true, false]) {
      // A fresh edge: its own limiter; `warm` puts the answer in its cache first, so the 304 is the cache's.
      const edge = edgeWith(env);
      const charged = warm ? (await call(edge, { url: RANGE })).headers['x-daily-quota-remaining'] : '10';
      const notModified = await call(edge, { url: RANGE, headers: { 'if-none-match': etag } });
      expect(notModified.statusCode, `warm=${warm}`).toBe(304);
      expect(notModified.headers['x-daily-quota-remaining'], `warm=${warm}`).toBe(charged);
      // Let the refund reach the store (it is not awaited on the hot path).
      await new Promise((resolve) => setImmediate(resolve));
      const next = await call(edge, { url: RANGE });
      expect(next.headers['x-daily-quota-remaining'], `warm=${warm}`).toBe(String(Number(charged) - 1));
    }
  });

  it('observes each finished request once, with the route, method, status, bytes, cache, file and limit', async () => {
    const { seen, observe, until } = recorder();
    const edge = edgeWith({ RATE_LIMIT_SITE_MINUTE: '1' }, observe);
    const data = await call(edge, { url: RANGE });
    const home = await call(edge, { url: '/' });
    await call(edge, { url: PATHS.news });
    const refused = await call(edge, { url: PATHS.news });
    const trace = await call(edge, { url: '/nowhere', method: 'TRACE' as 'GET' });
    await until(5);
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toHaveLength(5);
    expect(refused.statusCode).toBe(429);
    seen.splice(2, 1);
    expect(seen[0]).toMatchObject({ route: PATHS.data, method: 'GET', status: 200, bytesSent: Buffer.byteLength(data.body), responseCache: 'miss', staticFile: 'none', rateLimit: { class: 'data', outcome: 'allowed' } });
    expect(seen[1]).toMatchObject({ route: 'other', method: 'GET', status: 200, bytesSent: home.rawPayload.length, responseCache: 'none', rateLimit: { class: 'page', outcome: 'allowed' } });
    expect(['hit', 'miss']).toContain(seen[1]!.staticFile);
    expect(seen[2]).toMatchObject({ route: PATHS.news, status: 429, bytesSent: refused.rawPayload.length, rateLimit: { class: 'site', outcome: 'refused' } });
    expect(seen[3]).toMatchObject({ route: 'other', method: 'other', status: 405, bytesSent: trace.rawPayload.length });
    expect(trace.statusCode).toBe(405);
    for (const o of seen) expect(o.durationSeconds).toBeGreaterThan(0);
  });

  it('answers 405 with Allow from the route table, on every declared route', async () => {
    const edge = edgeWith();
    for (const route of DECLARED_ROUTES) {
      const refused = await call(edge, { url: pathOf(route.path), method: 'DELETE' });
      expect(refused.statusCode, route.path).toBe(405);
      expect(refused.headers.allow, route.path).toBe(allowOf(route.methods!));
      expect(problemOf(refused).code, route.path).toBe('method_not_allowed');
    }
    expect(astroCalls).toEqual([]);
  });

  it('answers HEAD from the GET on every declared route that answers GET: same status and head, no content', async () => {
    for (const route of DECLARED_ROUTES.filter((r) => r.methods?.includes('GET'))) {
      // A fresh edge each: the HEAD comes first, so it is the endpoint's (or the file's, or Astro's), not the cache's.
      const edge = edgeWith();
      const head = await call(edge, { url: pathOf(route.path), method: 'HEAD' });
      const get = await call(edge, { url: pathOf(route.path) });
      expect(head.statusCode, route.path).toBe(get.statusCode);
      expect(head.body, route.path).toBe('');
      for (const name of ['content-type', 'cache-control', 'etag', 'allow']) expect(head.headers[name], `${route.path} ${name}`).toBe(get.headers[name]);
      if (get.headers['content-length'] !== undefined && route.endpoint) expect(head.headers['content-length'], route.path).toBe(get.headers['content-length']);
    }
  });

  it('starts the contact deadline once the body is in: a valid body sent at 25 bytes/s is stored with 200', async () => {
    const fields = { name: 'Ada Lovelace', job_title: 'Analyst', work_email: 'ada@example.com', priority: 'high', message: '' };
    const bare = JSON.stringify(fields).length;
    const payload = JSON.stringify({ ...fields, message: `Slow upload ${'x'.repeat(128 - bare - 12)}` });
    expect(Buffer.byteLength(payload)).toBe(128);
    // 25 bytes a second: about 5 s for 128 bytes, longer than the route's deadline.
    expect(128 / 25 * 1000).toBeGreaterThan(routeOf(PATHS.contact).deadlineMs);
    const chunks = payload.match(/[\s\S]{1,25}/g)!;
    const slow = new Readable({
      read() {
        const chunk = chunks.shift();
        if (chunk === undefined) this.push(null);
        else setTimeout(() => this.push(chunk), 1000);
      },
    });
    const before = await db.kysely.selectFrom('contact_submission').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    const response = await call(edgeWith(), { url: PATHS.contact, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': '128', origin: SITE }, payload: slow });
    expect(response.statusCode).toBe(200);
    const after = await db.kysely.selectFrom('contact_submission').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n) + 1);
  }, 20_000);
});

describe('the edge in-process: one path for every stage (issue 31)', () => {
  const range = `startDate=${DAY}&endDate=${DAY}`;
  /** Raw and encoded backslashes on every class of route, the image endpoint and the asset prefix. */
  const BACKSLASHED = [
    `/\\api/v1/public/data?${range}`,
    `/api\\v1/public/data?${range}`,
    `/%5Capi/v1/public/data?${range}`,
    `/%5capi/v1/public/data?${range}`,
    '/\\api/news',
    '/api/news\\',
    '/\\sellers.json',
    '/x\\..\\sellers.json',
    '/\\stats/',
    '/\\',
    '/\\news/',
    '/\\_image?href=/favicon.svg&f=webp&w=10',
    '/%5C_image?href=/favicon.svg&f=webp&w=10',
    '/_astro\\..\\_image?href=/favicon.svg',
    '/\\_astro/app.abc123.js',
    '/\\healthz',
  ];

  it('refuses a raw or encoded backslash on every route with 400, charged to the site limit, before Astro, the endpoints or the data quota', async () => {
    const edge = edgeWith({ RATE_LIMIT_SITE_MINUTE: '1000', RATE_LIMIT_DATA_DAY: '5' });
    for (const target of BACKSLASHED) {
      const response = await callRaw(edge, target);
      expect(response.statusCode, target).toBe(400);
      expect(problemOf(response).code, target).toBe('validation_failed');
      expect(response.headers['ratelimit-limit'], target).toBe('1000');
    }
    for (const target of ['/\\api/contact', '/%5Capi/chat']) {
      const response = await callRaw(edge, target, { method: 'POST', headers: { 'content-type': 'application/json', origin: SITE }, payload: '{}' });
      expect(response.statusCode, target).toBe(400);
    }
    expect(astroCalls).toEqual([]);
    // The data API's day was never spent: its first real answer has 4 of 5 left.
    const data = await call(edge, { url: `${PATHS.data}?${range}` });
    expect(data.headers['x-daily-quota-remaining']).toBe('4');
  });

  it('refuses targets the URL parser would read as another path: control characters, dot segments and doubled slashes around the image endpoint', async () => {
    const edge = edgeWith();
    for (const target of ['/_im\tage', '/_im\nage', '/stats/\u007f', '/./_image', '/_astro/../_image', '/%2e%2E/_image']) {
      expect((await callRaw(edge, target)).statusCode, JSON.stringify(target)).toBe(400);
    }
    for (const target of ['/_image', '//_image', '/_IMAGE', '/%5Fimage', '/_Image/', '///_image?href=/favicon.svg']) {
      const response = await callRaw(edge, target);
      expect(response.statusCode, target).toBe(404);
      expect(problemOf(response).code, target).toBe('not_found');
    }
    expect(astroCalls).toEqual([]);
  });

  it('answers a miss under /_astro/ with 404 from the manifest, charged to the page limit, and serves a hit without charging it', async () => {
    const edge = edgeWith({ RATE_LIMIT_PAGE_MINUTE: '3' });
    const hit = await call(edge, { url: '/_astro/app.abc123.js' });
    expect(hit.statusCode).toBe(200);
    expect(hit.headers['ratelimit-limit']).toBeUndefined();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const miss = await call(edge, { url: `/_astro/${String(i).repeat(8_000)}.js` });
      statuses.push(miss.statusCode);
      expect(miss.headers['ratelimit-limit']).toBe('3');
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    expect(astroCalls).toEqual([]);
    expect((await call(edge, { url: '/_astro/app.abc123.js' })).statusCode).toBe(200);
  });
});
