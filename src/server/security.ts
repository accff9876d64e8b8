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

/**
 * The security headers of a route's responses as a flat `[name, value, ...]` list, the shape
 * `writeHead` takes: built once per route class, copied per request.
 */
export function securityHeaders(route: Route, https: boolean): readonly string[] {
  const block = COMMON.flat();
  block.push('Content-Security-Policy', route.kind === 'page' ? PAGE_CSP : API_CSP);
  // RFC 6797: only meaningful (and only honoured) over HTTPS.
  if (https) block.push('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
  return block;
}
