import { describe, expect, it } from 'vitest';
import { BadTarget, normalisePath, parseTarget } from '../../../src/server/request-target.ts';
import { cacheKeyOf, routeOf } from '../../../src/server/routes.ts';

/** The route of a raw request target, as the edge resolves it. */
const routeOfTarget = (target: string) => routeOf(parseTarget(target)!.pathname);

describe('the route table', () => {
  it.each([
    ['GET', '/api/v1/public/data', 'data'],
    ['POST', '/api/v1/public/data', 'data'],
    ['GET', '/api/v1/public/anything/else', 'data'],
    ['GET', '/api/v1/public', 'data'],
    ['POST', '/api/chat', 'chat'],
    ['POST', '/api/contact', 'contact'],
    ['GET', '/api/chat', 'site'],
    ['OPTIONS', '/api/chat', 'site'],
    ['OPTIONS', '/api/v1/public/data', 'data'],
    ['GET', '/api/v1/publicity', 'site'],
    ['GET', '/api/news', 'site'],
    ['GET', '/api/unknown-route', 'site'],
    ['GET', '/api', 'site'],
    ['GET', '/sellers.json', 'site'],
    ['HEAD', '/sellers.json', 'site'],
    ['GET', '/openapi.json', 'site'],
    ['GET', '/', 'page'],
    ['GET', '/news/some-article', 'page'],
    ['GET', '/stats/', 'page'],
    ['GET', '/_image', 'page'],
    // Unknown whether a prebuilt file answers: charged; a hit is not (below).
    ['GET', '/_astro/index.abc123.js', 'page'],
    ['GET', '/healthz', null],
    ['GET', '/readyz', null],
    ['GET', '/apiary', 'page'],
    ['GET', '/api-docs', 'page'],
  ] as const)('%s %s spends the %s windows', (method, path, expected) => {
    expect(routeOfTarget(path).rate(method)).toBe(expected);
  });

  it('gives every spelling of a path the policies of its one normalised path', () => {
    const spellings = ['/api/v1/public/data', '/api/v1/%70ublic/data', '/api//v1/public/data/', '/%61pi/v1/public/data', 'http://x.example/api/v1/public/data'];
    for (const spelling of spellings) expect(routeOfTarget(spelling)).toBe(routeOf('/api/v1/public/data'));
    for (const spelling of ['/api/news/', '/%61pi/news', '/sellers.json/', '/openapi.json/']) {
      const route = routeOfTarget(spelling);
      expect(route.cors, spelling).toBe('public');
      expect(route.kind, spelling).toBe('api');
    }
    expect(routeOfTarget('/%61pi/chat').bodyLimit).toBe(64 * 1024);
    expect(routeOfTarget('/api/%63ontact/').rate('POST')).toBe('contact');
  });

  it('answers the data prefix itself and everything below it in the data format', () => {
    expect(routeOf('/api/v1/public').interface).toBe('data');
    expect(routeOf('/api/v1/public/x').interface).toBe('data');
    expect(routeOf('/api/v1/publicity').interface).toBe('site');
  });

  it("hides Astro's internal endpoints but serves hashed assets", () => {
    expect(routeOf('/_image').kind).toBe('hidden');
    expect(routeOf('/_server-islands/x').kind).toBe('hidden');
    expect(routeOf('/_astro/a.js').kind).toBe('page');
  });

  it('serves only prebuilt files under /_astro/: a hit is free, a miss spends the page windows', () => {
    const asset = routeOf('/_astro/a.js');
    expect(asset.prebuiltOnly).toBe(true);
    expect(asset.rate('GET', true)).toBeNull();
    expect(asset.rate('GET', false)).toBe('page');
    expect(routeOf('/news/a').prebuiltOnly).toBe(false);
  });
});

describe('request target normalisation', () => {
  it.each([
    ['/api/v1/%70ublic/%64ata', '/api/v1/public/data'], ['/news/%7e%2dx', '/news/~-x'],
    ['/news/a%c3%a9', '/news/a%C3%A9'], ['//api///chat', '/api/chat'],
  ])('normalises %s to %s: unreserved characters decoded, other escapes upper-cased, slashes collapsed (RFC 3986 section 6.2.2)', (path, normal) => {
    expect(normalisePath(path)).toBe(normal);
  });

  it.each(['/api%2Fv1/public/data', '/api/%2fchat', '/a%5Cb', '/a\\b', '/\\api/v1/public/data', '/x\\..\\sellers.json', '/_im\tage', '/a\nb', '/a b', '/a\u0000b', '/api/%zz', '/%E0%A4%A', '/x%', '/api/../admin', '/./api/chat', '/api/%2e%2e/x', '/api/.%2E/x'])(
    'refuses %s',
    (path) => {
      expect(() => normalisePath(path)).toThrow(BadTarget);
    },
  );

  it('keeps the query untouched and drops a client-chosen authority', () => {
    expect(parseTarget('/api/news?x=%2F1')?.href).toBe('http://edge.invalid/api/news?x=%2F1');
    expect(parseTarget('http://evil.example//api/chat?a=b//c')?.href).toBe('http://edge.invalid/api/chat?a=b//c');
    expect(parseTarget('http://evil.example?x=1')?.pathname).toBe('/');
    expect(parseTarget('*')).toBeUndefined();
    expect(parseTarget('api/news')).toBeUndefined();
  });

  it('refuses a raw backslash in any form of target, where the URL parser would read a "/"', () => {
    for (const target of ['/\\api/v1/public/data?startDate=2026-01-01&endDate=2026-01-02', '/\\_image?href=/favicon.svg', 'http://x.example/\\_image', '/api/news\\']) {
      expect(() => parseTarget(target), target).toThrow(BadTarget);
    }
  });
});

describe('cache keys', () => {
  const key = (target: string) => {
    const url = parseTarget(target)!;
    return cacheKeyOf(routeOf(url.pathname), url.pathname, url.searchParams);
  };

  it('keys a data query by startDate then endDate, whatever order they came in', () => {
    expect(key('/api/v1/public/data?endDate=2026-01-31&startDate=2026-01-01')).toBe('/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-31');
    expect(key('/api/v1/%70ublic/data/?startDate=2026-01-01&endDate=2026-01-31')).toBe('/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-31');
  });

  it('never answers a data query with a refused parameter from the cache', () => {
    expect(key('/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-31&junk=1')).toBeUndefined();
    expect(key('/api/v1/public/data?startDate=2026-01-01&startDate=2026-01-02&endDate=2026-01-31')).toBeUndefined();
  });

  it('drops the parameters a page does not read', () => {
    expect(key('/stats/?utm_source=x&startDate=2026-01-01&junk=' + 'j'.repeat(5000))).toBe('/stats?startDate=2026-01-01');
    expect(key('/stats?x=1')).toBe('/stats');
    expect(key('/news/?page=2')).toBe('/news/');
  });
});
