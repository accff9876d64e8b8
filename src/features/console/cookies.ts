/**
 * The console's cookies (RFC 6265bis): the session, and the pre-session CSRF token of the
 * sign-in and enrolment pages (double-submit: the page holds the same value as the cookie, which
 * another site can neither read nor set). HttpOnly, SameSite=Strict, Path=/; behind https also
 * Secure with the `__Host-` prefix (RFC 6265bis section 4.1.3.2: no Domain, so no subdomain can
 * plant one).
 */
import type { HeaderReader } from '../../lib/endpoint.ts';

export type CookieKind = 'session' | 'pre';

export function cookieName(kind: CookieKind, https: boolean): string {
  const base = kind === 'session' ? 'console_session' : 'console_pre';
  return https ? `__Host-${base}` : base;
}

/** A cookie's value from the Cookie header, or undefined. */
export function readCookie(headers: HeaderReader, name: string): string | undefined {
  const header = headers.get('cookie');
  if (header === null) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * A Set-Cookie value. Session cookies carry no Max-Age: the server decides expiry (idle and
 * absolute, in the database); the browser drops it when closed. `maxAgeSeconds: 0` deletes.
 */
export function setCookie(kind: CookieKind, https: boolean, value: string, maxAgeSeconds?: number): string {
  const parts = [`${cookieName(kind, https)}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Strict'];
  if (https) parts.push('Secure');
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  return parts.join('; ');
}
