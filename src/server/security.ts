/**
 * Security headers every response carries. Page scripts and styles are governed by the
 * per-page CSP that Astro generates (hashes, no 'unsafe-inline', `security.csp`), delivered as a
 * <meta> element; directives a <meta> CSP cannot carry (frame-ancestors, CSP3 section 6.4.1) come
 * from this header. Browsers enforce every policy present, so the two combine.
 */
import { PAGE_CSP } from '../lib/csp.ts';
import type { Route } from './routes.ts';

// API responses are never rendered as documents: forbid everything.
const API_CSP = "default-src 'none'; frame-ancestors 'none'";

const COMMON: ReadonlyArray<[string, string]> = [
  ['X-Content-Type-Options', 'nosniff'],
  ['Referrer-Policy', 'strict-origin-when-cross-origin'],
  ['Permissions-Policy', 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()'],
  ['Cross-Origin-Opener-Policy', 'same-origin'],
  ['X-Frame-Options', 'DENY'],
];

// RFC 6797: only meaningful (and only honoured) over HTTPS.
const HSTS = ['Strict-Transport-Security', 'max-age=31536000; includeSubDomains'] as const;

/**
 * The headers of a page, as the edge sends them: also rendered into the nginx configuration
 * (deploy/render-nginx.ts), so a page nginx serves from the build carries the same policy.
 */
export function pageSecurityHeaders(https: boolean): ReadonlyArray<readonly [string, string]> {
  return [...COMMON, ['Content-Security-Policy', PAGE_CSP], ...(https ? [HSTS] : [])];
}

/**
 * The security headers of a route's responses as a flat `[name, value, ...]` list, the shape
 * `writeHead` takes: built once per route class, copied per request.
 */
export function securityHeaders(route: Route, https: boolean): readonly string[] {
  const block = COMMON.flat();
  block.push('Content-Security-Policy', route.kind === 'page' ? PAGE_CSP : API_CSP);
  if (https) block.push(...HSTS);
  return block;
}
