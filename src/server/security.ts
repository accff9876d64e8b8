/**
 * Security headers every response carries. Page scripts and styles are governed by the
 * per-page CSP that Astro generates (hashes, no 'unsafe-inline', `security.csp`), delivered as a
 * <meta> element; directives a <meta> CSP cannot carry (frame-ancestors, CSP3 section 6.4.1) come
 * from this header. Browsers enforce every policy present, so the two combine.
 */
import type { ServerResponse } from 'node:http';
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
 * Keep the edge's page policy when a handler sends its own CSP (Astro does for pages rendered
 * per request, with the script and style hashes): both are sent as two policies, which browsers
 * enforce together (CSP3 section 8.1), instead of the handler's replacing the edge's.
 */
export function keepEdgeCspOnWriteHead(res: ServerResponse): void {
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = ((...args: unknown[]) => {
    const headers = args.find((a, i) => i > 0 && typeof a === 'object' && a !== null && !Array.isArray(a)) as Record<string, unknown> | undefined;
    const key = headers && Object.keys(headers).find((k) => k.toLowerCase() === 'content-security-policy');
    if (headers && key) {
      const theirs = headers[key];
      delete headers[key];
      res.setHeader('Content-Security-Policy', [...(Array.isArray(theirs) ? theirs.map(String) : [String(theirs)]), PAGE_CSP]);
    }
    return writeHead(...args);
  }) as typeof res.writeHead;
}

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
