/**
 * CORS answers for credential-less cross-origin callers (Fetch standard, "CORS protocol").
 * Pure header builders: the chat route uses them, and the edge may reuse them for other API
 * routes so that every response agrees on what a cross-origin page can read.
 */
import { EXPOSED_HEADERS } from '../../lib/cors.ts';

/** The exposed-header list shared with the edge (src/lib/cors.ts). */
export const CORS_EXPOSED_HEADERS = EXPOSED_HEADERS;

/** How long a browser may cache a successful preflight. Chromium caps this at 7200 s. */
export const PREFLIGHT_MAX_AGE_SECONDS = 600;

export interface CorsOptions {
  /** The request's `Origin`, or undefined for same-origin GETs and non-browser clients. */
  origin: string | undefined;
  /** Whether that origin is allowed (decided by the caller, e.g. `checkOrigin`). */
  allowed: boolean;
  /** Extra exposed headers for this route, added to `CORS_EXPOSED_HEADERS`. */
  expose?: readonly string[];
}

/**
 * Headers for an actual (non-preflight) response. The allowed origin is echoed rather than `*`
 * because the answer depends on it, so caches are told with `Vary: Origin` (Fetch standard,
 * "CORS protocol and HTTP caches"); the Vary is sent for refused origins too.
 */
export function corsHeaders({ origin, allowed, expose = [] }: CorsOptions): Record<string, string> {
  if (!origin || !allowed) return { vary: 'Origin' };
  return {
    'access-control-allow-origin': origin,
    'access-control-expose-headers': [...CORS_EXPOSED_HEADERS, ...expose].join(', '),
    vary: 'Origin',
  };
}

export interface PreflightOptions extends CorsOptions {
  /** Methods the route accepts from other origins. */
  methods: readonly string[];
  /** Request headers it accepts beyond the safelisted ones (`content-type` for JSON bodies). */
  headers: readonly string[];
}

/**
 * Headers for a successful `OPTIONS` preflight: the allowed origin, methods and headers and how
 * long to cache the answer. Empty for a refused origin, which makes the browser fail the call.
 */
export function preflightHeaders({ methods, headers, ...cors }: PreflightOptions): Record<string, string> {
  if (!cors.origin || !cors.allowed) return { vary: 'Origin' };
  return {
    ...corsHeaders(cors),
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': headers.join(', '),
    'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
  };
}
