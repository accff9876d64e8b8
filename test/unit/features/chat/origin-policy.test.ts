import { describe, expect, it } from 'vitest';
import { EXPOSED_HEADERS, corsHeaders, preflightHeaders } from '../../../../src/lib/cors.ts';
import { checkOrigin } from '../../../../src/lib/cors-decision.ts';
import { originError } from '../../../../src/features/chat/origin-policy.ts';

const policy = { allowedOrigins: ['https://site.test', 'http://localhost:4321'], allowNoOrigin: false };

describe('checkOrigin', () => {
  it('allows an origin on the list and remembers it for the CORS echo', () => {
    expect(checkOrigin('https://site.test', policy)).toEqual({ allowed: true, origin: 'https://site.test' });
  });

  it('refuses an origin that is not on the list, however similar', () => {
    for (const origin of ['https://evil.test', 'https://site.test.evil.test', 'http://site.test', 'https://site.test:444', 'http://localhost:4322']) {
      expect(checkOrigin(origin, policy)).toEqual({ allowed: false, reason: 'not_listed', origin });
    }
  });

  it('treats the opaque origin "null" as an origin that is never listed', () => {
    expect(checkOrigin('null', policy)).toMatchObject({ allowed: false, reason: 'not_listed' });
  });

  it('refuses a request without Origin unless the operator allows them', () => {
    expect(checkOrigin(null, policy)).toEqual({ allowed: false, reason: 'missing', origin: undefined });
    expect(checkOrigin('', policy)).toEqual({ allowed: false, reason: 'missing', origin: undefined });
    expect(checkOrigin(undefined, { ...policy, allowNoOrigin: true })).toEqual({ allowed: true, origin: undefined });
  });

  it('still refuses an unlisted origin when requests without Origin are allowed', () => {
    expect(checkOrigin('https://evil.test', { ...policy, allowNoOrigin: true }).allowed).toBe(false);
  });

  it('explains each refusal as a 403 that says what to do', () => {
    const missing = originError({ allowed: false, reason: 'missing', origin: undefined });
    const listed = originError({ allowed: false, reason: 'not_listed', origin: 'https://evil.test' });
    expect([missing.status, missing.code, listed.status, listed.code]).toEqual([403, 'origin_not_allowed', 403, 'origin_not_allowed']);
    expect(missing.resolution).toContain('CHAT_ALLOW_NO_ORIGIN');
    expect(listed.detail).toContain('https://evil.test');
    expect(listed.resolution).toContain('ALLOWED_ORIGINS');
  });
});

describe('CORS headers', () => {
  it('echo an allowed origin, expose the limit headers and vary by Origin', () => {
    expect(corsHeaders({ origin: 'https://site.test', allowed: true })).toEqual({
      'access-control-allow-origin': 'https://site.test',
      'access-control-expose-headers': 'RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy, RateLimit, Retry-After, X-RateLimit-Scope, X-RateLimit-Remaining, X-RateLimit-Reset, X-Daily-Quota-Remaining, X-Request-Id, ETag, Date, Link, X-Data-Settled-Through, X-Data-Missing-Days',
      vary: 'Origin',
    });
  });

  it('grant nothing to a refused origin or a request without one, but still vary by Origin', () => {
    expect(corsHeaders({ origin: 'https://evil.test', allowed: false })).toEqual({ vary: 'Origin' });
    expect(corsHeaders({ origin: undefined, allowed: true })).toEqual({ vary: 'Origin' });
  });

  it('add route-specific exposed headers after the shared ones', () => {
    const headers = corsHeaders({ origin: 'https://site.test', allowed: true, expose: ['X-Chat-Model'] });
    expect(headers['access-control-expose-headers']).toBe([...EXPOSED_HEADERS, 'X-Chat-Model'].join(', '));
  });

  it('answer a preflight with methods, headers and a cache lifetime only for an allowed origin', () => {
    expect(preflightHeaders({ origin: 'https://site.test', allowed: true, methods: ['POST'], headers: ['content-type'] })).toMatchObject({
      'access-control-allow-origin': 'https://site.test',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type',
      'access-control-max-age': '600',
      vary: 'Origin',
    });
    expect(preflightHeaders({ origin: 'https://evil.test', allowed: false, methods: ['POST'], headers: ['content-type'] })).toEqual({ vary: 'Origin' });
  });
});
