/**
 * Integrator keys through the real server and the real CLI, on SQLite and PostgreSQL: a key made
 * by `api-keys create` spends its own quotas (reported in the spec's headers), a bad or revoked
 * key gets 401 in the data format, a 304 does not spend the daily quota, and the same through
 * the run's Redis.
 *
 * The four tests of an engine share one server and database (a server start is about 1 s of CPU,
 * nearly all module loading): each makes keys of its own and sends its anonymous requests from a
 * loopback address of its own (127.0.0.0/8; the server keys anonymous clients by the socket's
 * address), so no test sees another's windows.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDatabase } from '../../helpers/postgres.ts';
import { SHARED_LIMITS_ENV, testRedisUrl, untilLimitsShared } from '../../helpers/redis.ts';
import { startServer, tempSqliteUrl, testEnv, type RunningServer } from '../../helpers/server.ts';
import { ENGINES } from '../../helpers/contact-fixtures.ts';

const execFileAsync = promisify(execFile);
const RANGE = '/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-02';

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function databaseUrl(engine: (typeof ENGINES)[number]): Promise<string> {
  if (engine === 'sqlite') return tempSqliteUrl();
  const temp = await createTempDatabase('keys');
  cleanups.push(() => temp.drop());
  return temp.url;
}

async function boot(env: Record<string, string>): Promise<RunningServer> {
  const server = await startServer(env);
  cleanups.push(() => server.stop());
  return server;
}

/** `api-keys` as its npm script runs it; resolves with stdout (throws on a non-zero exit). */
async function apiKeys(url: string, ...args: string[]): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, ['jobs/cli/api-keys.ts', ...args], { env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: url } });
  return stdout;
}

async function createKey(url: string, ...flags: string[]): Promise<{ token: string; id: string }> {
  const token = (await apiKeys(url, 'create', '--name', `test ${randomBytes(3).toString('hex')}`, ...flags)).trim();
  expect(token).toMatch(/^adk_[A-Za-z0-9_-]{43}$/);
  const listed = await apiKeys(url, 'list');
  const line = listed.split('\n').find((l) => l.includes(`${token.slice(0, 8)}...`));
  expect(line, listed).toBeDefined();
  return { token, id: line!.split('  ')[0]! };
}

function get(server: RunningServer, token?: string, headers: Record<string, string> = {}, from?: string): Promise<Response> {
  const all = { ...headers, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) };
  return from === undefined ? fetch(`${server.url}${RANGE}`, { headers: all }) : getFrom(from, server, all);
}

/** GET RANGE over a connection from `from` (any 127.0.0.0/8 address), answered as a fetch Response. */
function getFrom(from: string, server: RunningServer, headers: Record<string, string>): Promise<Response> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: RANGE, headers, localAddress: from }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const status = res.statusCode ?? 0;
        const fields = Object.entries(res.headers).flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)] as [string, string]]));
        // A 304 has no body (RFC 9110 section 15.4.5), and Response refuses one for it.
        resolve(new Response(status === 304 ? null : Buffer.concat(chunks), { status, headers: fields }));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/** A loopback address no other test of this file sends from: a client of its own to the server. */
let peers = 1;
const newPeer = () => `127.0.0.${++peers}`;

function figures(res: Response): { status: number; minute: string | null; day: string | null } {
  return { status: res.status, minute: res.headers.get('x-ratelimit-remaining'), day: res.headers.get('x-daily-quota-remaining') };
}

describe.each(ENGINES)('API keys on %s', (engine) => {
  let url = '';
  let server: RunningServer;
  beforeAll(async () => {
    url = await databaseUrl(engine);
    // What each test needs of the server: anonymous windows of 5 a minute and 100 a day (the
    // first two tests), key lookups cached for 1 s (the third); the others send keyed requests
    // alone, which these settings do not touch.
    server = await boot({ DATABASE_URL: url, RATE_LIMIT_DATA_MINUTE: '5', RATE_LIMIT_DATA_DAY: '100', API_KEY_CACHE_SECONDS: '1' });
  });

  it('spends the key\'s own windows, reported in the headers, and leaves the anonymous ones alone', async () => {
    const from = newPeer();
    const { token } = await createKey(url, '--minute', '3', '--day', '1000');

    expect(figures(await get(server, undefined, {}, from))).toEqual({ status: 200, minute: '4', day: '99' });
    expect(figures(await get(server, token, {}, from))).toEqual({ status: 200, minute: '2', day: '999' });
    expect(figures(await get(server, token, {}, from))).toEqual({ status: 200, minute: '1', day: '998' });
    expect(figures(await get(server, token, {}, from))).toEqual({ status: 200, minute: '0', day: '997' });
    const refused = await get(server, token, {}, from);
    expect(figures(refused)).toEqual({ status: 429, minute: '0', day: '997' });
    expect(await refused.json()).toMatchObject({ code: 'SVC1010' });
    // The client's address was charged once, by its anonymous request.
    expect(figures(await get(server, undefined, {}, from))).toEqual({ status: 200, minute: '3', day: '98' });
  });

  it('answers 401 with the Bearer challenge for an unknown or malformed key, charged as anonymous', async () => {
    const from = newPeer();
    const unknown = await get(server, `adk_${randomBytes(32).toString('base64url')}`, {}, from);
    expect(unknown.status).toBe(401);
    expect(unknown.headers.get('www-authenticate')).toBe('Bearer realm="data", error="invalid_token"');
    expect(unknown.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(unknown.headers.get('x-daily-quota-remaining')).toBe('99');
    const body = (await unknown.json()) as { code: string; message: string };
    expect(body).toEqual({ code: 'unauthorized', message: expect.stringMatching(/^The API key is not valid: it is unknown or has been revoked/) });

    const basic = await get(server, undefined, { authorization: 'Basic dXNlcjpwYXNz' }, from);
    expect(basic.status).toBe(401);
    expect(basic.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(((await basic.json()) as { code: string }).code).toBe('unauthorized');
  });

  it('stops a revoked key within API_KEY_CACHE_SECONDS', async () => {
    const from = newPeer();
    const { token, id } = await createKey(url);
    expect((await get(server, token, {}, from)).status).toBe(200);
    expect(await apiKeys(url, 'revoke', id)).toBe(`key ${id} revoked\n`);
    // Within the TTL (1 s here) the cached answer may still admit it; after it, never again.
    let status = 200;
    for (let attempt = 0; attempt < 40 && status !== 401; attempt++) {
      await new Promise((r) => setTimeout(r, 250));
      status = (await get(server, token, {}, from)).status;
    }
    expect(status).toBe(401);
    expect((await get(server, token, {}, from)).status).toBe(401);
  });

  it('does not spend the daily quota on a 304 Not Modified, and says so in its headers', async () => {
    const from = newPeer();
    // 10 a minute: a token comes back every 6 s, far longer than this test's requests take.
    const { token } = await createKey(url, '--minute', '10', '--day', '3');
    const first = await get(server, token, {}, from);
    expect(figures(first)).toEqual({ status: 200, minute: '9', day: '2' });
    const etag = first.headers.get('etag')!;
    for (let i = 0; i < 5; i++) {
      const notModified = await get(server, token, { 'if-none-match': etag }, from);
      // The minute window is still charged; the day is not.
      expect(figures(notModified)).toEqual({ status: 304, minute: String(8 - i), day: '2' });
    }
    expect(figures(await get(server, token, {}, from))).toEqual({ status: 200, minute: '3', day: '1' });
    expect(figures(await get(server, token, {}, from))).toEqual({ status: 200, minute: '2', day: '0' });
    // The day is spent: even a request that would have been a 304 is refused (it is charged first).
    expect((await get(server, token, { 'if-none-match': etag }, from)).status).toBe(429);
  });
});

describe('api-keys revoke', () => {
  it('exits 65 (EX_DATAERR, in the README\'s table) with one line for an id that names no key', async () => {
    const url = tempSqliteUrl();
    const run = await execFileAsync(process.execPath, ['jobs/cli/api-keys.ts', 'revoke', '99'], { env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: url } }).then(
      () => ({ code: 0, stdout: '', stderr: '' }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );
    expect(run).toEqual({ code: 65, stdout: '', stderr: 'api-keys: no key with id 99 (`npm run -s api-keys -- list` shows the ids)\n' });
  });
});

describe('API keys with the Redis store', () => {
  it('keeps each key\'s quotas and the 304 refund in Redis, shared by two instances', async () => {
    const url = tempSqliteUrl();
    const { token } = await createKey(url, '--minute', '10', '--day', '4');
    // A generous command timeout: on a loaded machine a slow answer would otherwise count as an
    // outage and the instances would fall back to their own memory (the store's promise).
    const env = { DATABASE_URL: url, REDIS_URL: testRedisUrl(), REDIS_KEY_PREFIX: `keys-${randomBytes(4).toString('hex')}:`, ...SHARED_LIMITS_ENV };
    const [a, b] = [await boot(env), await boot(env)];
    // Anonymous requests first, and each instance deciding in Redis before the key's requests.
    for (const server of [a, b]) expect((await get(server)).status).toBe(200);
    for (const server of [a, b]) await untilLimitsShared(server);
    const first = await get(a, token);
    expect(figures(first)).toEqual({ status: 200, minute: '9', day: '3' });
    const etag = first.headers.get('etag')!;
    expect(figures(await get(b, token, { 'if-none-match': etag }))).toEqual({ status: 304, minute: '8', day: '3' });
    expect(figures(await get(a, token, { 'if-none-match': etag }))).toEqual({ status: 304, minute: '7', day: '3' });
    expect(figures(await get(b, token))).toEqual({ status: 200, minute: '6', day: '2' });
    expect(figures(await get(a, token))).toEqual({ status: 200, minute: '5', day: '1' });
    expect(figures(await get(b, token))).toEqual({ status: 200, minute: '4', day: '0' });
    expect((await get(a, token)).status).toBe(429);
  });
});

describe('draft RateLimit headers and the IPv6 prefix', () => {
  it('adds the draft pair when RATE_LIMIT_DRAFT_HEADERS=true, exposed to other origins', async () => {
    const server = await boot({ RATE_LIMIT_DRAFT_HEADERS: 'true', RATE_LIMIT_DATA_MINUTE: '60', RATE_LIMIT_DATA_DAY: '5000' });
    const data = await get(server);
    expect(data.headers.get('ratelimit-policy')).toBe('"data-minute";q=60;w=60, "data-day";q=5000;w=86400');
    expect(data.headers.get('ratelimit')).toMatch(/^"data-minute";r=59;t=1, "data-day";r=4999;t=\d+$/);
    expect(data.headers.get('access-control-expose-headers')).toContain('RateLimit,');
    const site = await fetch(`${server.url}/api/news`);
    expect(site.headers.get('ratelimit-limit')).toBe('300');
    expect(site.headers.get('ratelimit-policy')).toBe('"site-minute";q=300;w=60');
    expect(site.headers.get('ratelimit')).toBe('"site-minute";r=299;t=1');
  });

  it('sends neither by default', async () => {
    const server = await boot({});
    const data = await get(server);
    expect(data.headers.get('ratelimit')).toBeNull();
    expect(data.headers.get('ratelimit-policy')).toBeNull();
    expect((await fetch(`${server.url}/api/news`)).headers.get('ratelimit-policy')).toBe('300;w=60');
  });

  it('keys IPv6 clients by RATE_LIMIT_IPV6_PREFIX (the trusted proxy forwards their addresses)', async () => {
    const server = await boot({ TRUST_PROXY: '127.0.0.1', RATE_LIMIT_DATA_DAY: '100', RATE_LIMIT_IPV6_PREFIX: '48' });
    const from = (address: string) => get(server, undefined, { 'x-forwarded-for': address });
    expect(figures(await from('2001:db8:1:2::1')).day).toBe('99');
    expect(figures(await from('2001:db8:1:ff00::7')).day).toBe('98'); // same /48
    expect(figures(await from('2001:db8:2::1')).day).toBe('99'); // another /48
  });

  it('refuses a prefix outside 1-128 at start-up with exit 78 and one line', async () => {
    const child = spawn(process.execPath, ['src/app/main.ts'], { env: testEnv({ RATE_LIMIT_IPV6_PREFIX: '129' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(78);
    expect(stderr).toBe('Invalid configuration: RATE_LIMIT_IPV6_PREFIX: must be a prefix length from 1 to 128 (got "129"). See docs/operators.md, section "Configuration".\n');
  });
});
