/**
 * The checks every state-changing console request passes before any work (OWASP CSRF
 * Prevention cheat sheet): it comes from the site's own origin, by Fetch Metadata
 * (`Sec-Fetch-Site: same-origin`, W3C Fetch Metadata section 2.1) and by `Origin` (RFC 6454
 * section 7; browsers send it with every POST), and it carries the right token. The session
 * cookie is SameSite=Strict as well; these checks do not rely on it.
 */
import type { HeaderReader } from '../../lib/endpoint.ts';
import { HttpError } from '../../lib/http-error.ts';
import { sameToken } from './tokens.ts';

/** Why a request is refused as cross-site, or undefined when it is same-origin. */
export function crossSiteProblem(headers: HeaderReader, siteOrigin: string): string | undefined {
  const site = headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin') return `Sec-Fetch-Site is ${JSON.stringify(site)}, not "same-origin"`;
  const origin = headers.get('origin');
  if (origin === null) return 'the request has no Origin header';
  if (origin !== siteOrigin) return `Origin ${JSON.stringify(origin)} is not the site's (${siteOrigin})`;
  return undefined;
}

/** 403 for a cross-site request or a missing or wrong CSRF token: nothing was done. */
export function forbidden(detail: string): HttpError {
  return new HttpError('origin_not_allowed', {
    detail,
    resolution: 'Use the console at its own address; reload the page for a fresh form.',
    headers: { 'cache-control': 'no-store' },
  });
}

/** Refuse unless same-origin and `sent` matches `expected` (constant-time). */
export function assertSameOrigin(headers: HeaderReader, siteOrigin: string): void {
  const problem = crossSiteProblem(headers, siteOrigin);
  if (problem !== undefined) throw forbidden(`Cross-site request refused: ${problem}.`);
}

export function assertToken(sent: string | null | undefined, expected: string | undefined): void {
  if (!sent || !expected || !sameToken(sent, expected)) throw forbidden('The CSRF token is missing or does not match this session.');
}
