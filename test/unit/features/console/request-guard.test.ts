/** The same-origin and CSRF-token checks of every state-changing console request. */
import { describe, expect, it } from 'vitest';
import { assertToken, crossSiteProblem } from '../../../../src/features/console/request-guard.ts';

const SITE = 'https://example.com';
const headers = (values: Record<string, string>) => new Headers(values);

describe('crossSiteProblem', () => {
  it('accepts a same-origin request, with or without Fetch Metadata', () => {
    expect(crossSiteProblem(headers({ origin: SITE, 'sec-fetch-site': 'same-origin' }), SITE)).toBeUndefined();
    expect(crossSiteProblem(headers({ origin: SITE }), SITE)).toBeUndefined();
  });

  it('refuses another site, a sibling subdomain, an opaque origin and no origin at all', () => {
    expect(crossSiteProblem(headers({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }), SITE)).toBe('Sec-Fetch-Site is "cross-site", not "same-origin"');
    expect(crossSiteProblem(headers({ origin: SITE, 'sec-fetch-site': 'same-site' }), SITE)).toBe('Sec-Fetch-Site is "same-site", not "same-origin"');
    expect(crossSiteProblem(headers({ origin: 'https://a.example.com' }), SITE)).toBe('Origin "https://a.example.com" is not the site\'s (https://example.com)');
    expect(crossSiteProblem(headers({ origin: 'http://example.com' }), SITE)).toMatch(/^Origin "http:\/\/example.com"/);
    expect(crossSiteProblem(headers({ origin: 'null' }), SITE)).toMatch(/^Origin "null"/);
    expect(crossSiteProblem(headers({}), SITE)).toBe('the request has no Origin header');
  });
});

describe('assertToken', () => {
  it('passes the right token and refuses a wrong, missing or empty one with 403', () => {
    const token = 'a'.repeat(43);
    expect(() => assertToken(token, token)).not.toThrow();
    for (const [sent, expected] of [
      ['b'.repeat(43), token],
      [`${token}x`, token],
      [null, token],
      ['', token],
      [token, undefined],
      ['', ''],
    ] as const) {
      expect(() => assertToken(sent, expected)).toThrow(expect.objectContaining({ status: 403, code: 'origin_not_allowed' }));
    }
  });
});
