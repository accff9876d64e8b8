import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRequestTarget, parseTarget, type RequestTarget } from '../../../src/server/request-target.ts';

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
    ]) {
      expect(reading(parseRequestTarget, target), target).toEqual(reading(parseTarget, target));
    }
  });
});
