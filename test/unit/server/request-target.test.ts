import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRequestTarget, parseTarget, readTarget, type RequestTarget } from '../../../src/server/request-target.ts';

/** What the edge reads of a target, or the refusal: the two parsers must agree on it. */
function reading(parse: (target: string) => RequestTarget | undefined, target: string): unknown {
  try {
    const t = parse(target);
    return t === undefined ? 'not a path' : { pathname: t.pathname, search: t.search, params: [...t.searchParams] };
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

/** Characters that matter to one parser or the other: separators, escapes, dots, what URL encodes. */
const PIECES = ['/', '//', '.', '..', '?', '&', '=', '%', '%2F', '%70', '%7e', '%zz', '#', ' ', '"', "'", '<', '\\', '+', '~', ':', '@', 'é', 'a', 'Z', '0', '-', '_', 'api', 'news', 'data'];
const targets = fc.oneof(
  fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }).map((parts) => `/${parts.join('')}`),
  fc.string({ maxLength: 24 }).map((rest) => `/${rest}`),
  fc.string({ maxLength: 24 }),
);

describe('parseRequestTarget', () => {
  it('reads every target exactly as parseTarget (the URL parser) does', () => {
    fc.assert(
      fc.property(targets, (target) => {
        expect(reading(parseRequestTarget, target)).toEqual(reading(parseTarget, target));
      }),
      { numRuns: 5_000 },
    );
  });

  it('agrees on the targets real clients send and on the ones the edge refuses', () => {
    for (const target of [
      '/',
      '/news/',
      '/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-31',
      '/api/v1/public/data?startDate=2026-01-01&startDate=2026-01-02',
      '/api/news?',
      '/api/news?x=%2F1&y=a+b',
      '/api/news?q=it\'s',
      '/.well-known/security.txt',
      '/a/./b',
      '/a/../b',
      '/a//b',
      '/api/v1/%70ublic/data',
      'http://evil.example//api/chat?a=b//c',
      '*',
      '/\\api/v1/public/data?startDate=2026-01-01&endDate=2026-01-02',
      '/x\\..\\sellers.json',
      '/\\_image?href=/favicon.svg',
    ]) {
      expect(reading(parseRequestTarget, target), target).toEqual(reading(parseTarget, target));
    }
  });
});

describe('readTarget', () => {
  it('never throws: a refused target keeps its path as sent and says why', () => {
    expect(readTarget('/\\api/v1/public/data?startDate=x')).toEqual({ url: expect.objectContaining({ pathname: '/\\api/v1/public/data', search: '' }), refusal: 'The path contains a "\\".' });
    expect(readTarget('/%5C_image').refusal).toBe('The path contains an encoded "/" or "\\".');
    expect(readTarget('*').refusal).toBe('The request target is not a valid path.');
    expect(readTarget('/api/news?x=1')).toEqual({ url: expect.objectContaining({ pathname: '/api/news', search: '?x=1' }) });
  });

  it('gives every refused path and every accepted one a single meaning the URL parser keeps', () => {
    fc.assert(
      fc.property(targets, (target) => {
        const { url, refusal } = readTarget(target);
        if (refusal !== undefined) return;
        // Re-reading what the edge hands on (to Astro, the cache, the log) gives the same path.
        expect(readTarget(`${url.pathname}${url.search}`).url.pathname).toBe(url.pathname);
        expect(url.pathname).not.toMatch(/\\|\/\/|\/\.\.?(\/|$)/);
      }),
      { numRuns: 5_000 },
    );
  });
});
