/** The console's cookies: flags by scheme, the __Host- prefix behind https, reading one back. */
import { describe, expect, it } from 'vitest';
import { cookieName, readCookie, setCookie } from '../../../../src/features/console/cookies.ts';

describe('console cookies', () => {
  it('are HttpOnly and SameSite=Strict; behind https also Secure with the __Host- prefix', () => {
    expect(setCookie('session', false, 'abc')).toBe('console_session=abc; Path=/; HttpOnly; SameSite=Strict');
    expect(setCookie('session', true, 'abc')).toBe('__Host-console_session=abc; Path=/; HttpOnly; SameSite=Strict; Secure');
    expect(setCookie('pre', true, '', 0)).toBe('__Host-console_pre=; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=0');
  });

  it('reads a cookie by its exact name only', () => {
    const headers = new Headers({ cookie: 'xconsole_session=no; console_session=yes; other=1' });
    expect(readCookie(headers, cookieName('session', false))).toBe('yes');
    expect(readCookie(headers, cookieName('session', true))).toBeUndefined();
    expect(readCookie(new Headers(), 'console_session')).toBeUndefined();
  });
});
