/**
 * One meaning per request: every
 * spelling of a path gets the policies of its one normalised path, the data interface refuses
 * parameters it does not define, Astro's internals are not served, pages carry the limits, and
 * errors come in the format of the interface the request was meant for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, type RawInit, type RawResponse } from '../helpers/raw-http.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ RATE_LIMIT_DATA_MINUTE: '100000', RATE_LIMIT_DATA_DAY: '100000', RATE_LIMIT_SITE_MINUTE: '100000', RATE_LIMIT_PAGE_MINUTE: '100000' });
});
afterAll(async () => {
  await server?.stop();
});

/** A request exactly as written: no client-side path normalisation. */
const raw = (path: string, init?: RawInit): Promise<RawResponse> => rawRequest(server.url, path, init);

/** The policy-bearing part of a response: what must not depend on how the path was spelled. */
function policies(res: RawResponse) {
  return {
    status: res.status,
    type: res.headers['content-type'],
    cors: res.headers['access-control-allow-origin'],
    csp: res.headers['content-security-policy'],
    dataLimit: res.headers['x-ratelimit-remaining'] !== undefined,
    siteLimit: res.headers['ratelimit-limit'] !== undefined,
  };
}

const RANGE = 'startDate=2026-01-01&endDate=2026-01-05';

describe('the data interface', () => {
  it('refuses a parameter it does not define with SVC1005 naming it', async () => {
    const res = await raw(`/api/v1/public/data?${RANGE}&junk=${'x'.repeat(100)}`);
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = JSON.parse(res.body) as { code: string; message: string };
    expect(body.code).toBe('SVC1005');
    expect(body.message).toContain('"junk"');
  });

  it('refuses the junk parameter even when the same range is already cached', async () => {
    expect((await raw(`/api/v1/public/data?${RANGE}`)).status).toBe(200);
    expect((await raw(`/api/v1/public/data?${RANGE}`)).status).toBe(200);
    expect((await raw(`/api/v1/public/data?${RANGE}&utm_source=x`)).status).toBe(400);
  });

  it('answers the data prefix itself in its own format, like every path below it', async () => {
    for (const path of ['/api/v1/public', '/api/v1/public/', '/api/v1/public/x']) {
      const res = await raw(path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toMatch(/^application\/json/);
      expect(Object.keys(JSON.parse(res.body) as object).sort(), path).toEqual(['code', 'message']);
    }
  });

  it('answers a query string past the 16 KiB header limit with 431 in the format of its interface', async () => {
    const data = await raw(`/api/v1/public/data?${RANGE}&pad=${'p'.repeat(20_000)}`);
    expect(data.status).toBe(431);
    expect(data.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(data.body)).toMatchObject({ code: 'headers_too_large' });
    const site = await raw(`/api/news?pad=${'p'.repeat(20_000)}`);
    expect(site.status).toBe(431);
    expect(site.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});

describe('percent-encoded and trailing-slash spellings', () => {
  it.each([
    [`/api/v1/public/data?${RANGE}`, [`/api/v1/%70ublic/data?${RANGE}`, `/%61pi/v1/public/data?${RANGE}`, `/api/v1/public/data/?${RANGE}`, `//api/v1//public/%64ata?${RANGE}`]],
    ['/api/v1/public/data?startDate=bad', ['/api/v1/%70ublic/data?startDate=bad', '/api/%76%31/public/data?startDate=bad']],
    ['/api/news', ['/api/news/', '/%61pi/news', '/api/%6Eews']],
    ['/sellers.json', ['/sellers.json/', '/%73ellers.json']],
    ['/openapi.json', ['/openapi.json/']],
    ['/api/chat', ['/%61pi/chat', '/api/cha%74/']],
    ['/api/nothing', ['/%61pi/nothing']],
  ])('%s and its spellings get one set of policies', async (canonical, spellings) => {
    const expected = policies(await raw(canonical));
    for (const spelling of spellings) expect(policies(await raw(spelling)), spelling).toEqual(expected);
  });

  it.each(['/api%2Fv1/public/data', '/api/v1/public/data%2F', '/api/%zz', '/api/v1/public/%2e%2e/x', '/api/v1/public/../public/data', '/news/%E0%A4%A'])(
    'refuses %s with 400',
    async (path) => {
      const res = await raw(path);
      expect(res.status).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    },
  );
});

describe("Astro's internal endpoints and pages", () => {
  it('does not serve /_image', async () => {
    for (const path of ['/_image?href=/favicon.svg&w=10&f=webp', `/_image?junk=${'j'.repeat(2000)}`]) {
      const res = await raw(path);
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.headers['ratelimit-limit']).toBeDefined();
    }
  });

  it('puts the site rate-limit headers on pages, prebuilt or rendered', async () => {
    for (const path of ['/', '/news/', '/stats/', '/does-not-exist']) {
      const res = await raw(path);
      expect(res.headers['ratelimit-limit'], path).toBe('100000');
      expect(res.headers['ratelimit-remaining'], path).toBeDefined();
    }
  });
});

describe('the page bucket', () => {
  let limited: RunningServer;
  afterAll(async () => {
    await limited?.stop();
  });

  it('stops one client rendering /stats/ 300 times in a row', async () => {
    limited = await startServer({});
    const statuses: number[] = [];
    let last: Response | undefined;
    const started = performance.now();
    // In waves of 20 at once: a loaded machine renders slowly, and the bucket refills while it
    // waits (one token every 250 ms at 240 a minute); the bound below counts that refill.
    for (let wave = 0; wave < 15; wave++) {
      const answers = await Promise.all(
        Array.from({ length: 20 }, async (_, j) => {
          const i = wave * 20 + j;
          const response = await fetch(`${limited.url}/stats/?startDate=2026-01-01&endDate=2026-01-0${1 + (i % 9)}`);
          await response.arrayBuffer();
          return response;
        }),
      );
      for (const response of answers) {
        statuses.push(response.status);
        if (response.status === 429) last = response;
      }
    }
    const refilled = Math.ceil(((performance.now() - started) / 60_000) * 240) + 1;
    const served = statuses.filter((s) => s !== 429).length;
    // The default page bucket holds 240: no more than that and its refill are served, the rest
    // of 300 rapid renders are refused, and none of the first 200.
    expect(served).toBeLessThanOrEqual(240 + refilled);
    expect(served).toBeGreaterThanOrEqual(200);
    expect(statuses.slice(0, 200).every((s) => s !== 429)).toBe(true);
    // A refusal's own headers (a fresh request after the loop could meet the token the bucket
    // refills every 250 ms at 240 a minute, and pass).
    expect(last?.status).toBe(429);
    expect(last!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(last!.headers.get('x-ratelimit-scope')).toBe('page-minute');
  });
});
