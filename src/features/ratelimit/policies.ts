/**
 * Which limits apply to which request (interface spec section 8; issue 4).
 *
 * A route class names a list of windows; a request consumes one unit from every window of its
 * class, and windows with the same name are the same bucket whatever route consumed from them
 * (`site-minute` is shared by every site route, chat and contact included).
 */
import type { Config } from '../../app/config.ts';

export type RouteClass = 'site' | 'chat' | 'contact' | 'data';

export interface Window {
  /** e.g. 'site-minute', 'chat-day'; reported in X-RateLimit-Scope and part of the store key. */
  name: string;
  /** Requests per period (the bucket's capacity, or the day's quota). */
  limit: number;
  /**
   * 'bucket': token bucket, capacity = limit, refilled continuously at limit per periodSeconds.
   * 'utc-day': a counter of the current UTC day, reset at 00:00 UTC.
   */
  kind: 'bucket' | 'utc-day';
  /** Length of the window: 60, 3600 or 86400. */
  periodSeconds: number;
}

/** The configuration this module reads; `Config` satisfies it. */
export type RateLimitConfig = Pick<
  Config,
  | 'RATE_LIMIT_SITE_MINUTE'
  | 'RATE_LIMIT_CHAT_MINUTE'
  | 'RATE_LIMIT_CHAT_DAY'
  | 'RATE_LIMIT_CONTACT_HOUR'
  | 'RATE_LIMIT_CONTACT_DAY'
  | 'RATE_LIMIT_DATA_MINUTE'
  | 'RATE_LIMIT_DATA_DAY'
>;

/**
 * The windows of each route class, in the order RateLimit-Policy lists them.
 * Defaults (src/config.ts): site 300/min; chat 10/min + 200/day; contact 20/h + 100/day;
 * data 60/min + 5,000 per UTC day.
 */
export function policiesFromConfig(config: RateLimitConfig): Record<RouteClass, Window[]> {
  const site: Window = { name: 'site-minute', limit: config.RATE_LIMIT_SITE_MINUTE, kind: 'bucket', periodSeconds: 60 };
  return {
    site: [site],
    chat: [
      site,
      { name: 'chat-minute', limit: config.RATE_LIMIT_CHAT_MINUTE, kind: 'bucket', periodSeconds: 60 },
      { name: 'chat-day', limit: config.RATE_LIMIT_CHAT_DAY, kind: 'utc-day', periodSeconds: 86_400 },
    ],
    contact: [
      site,
      { name: 'contact-hour', limit: config.RATE_LIMIT_CONTACT_HOUR, kind: 'bucket', periodSeconds: 3_600 },
      { name: 'contact-day', limit: config.RATE_LIMIT_CONTACT_DAY, kind: 'utc-day', periodSeconds: 86_400 },
    ],
    data: [
      { name: 'data-minute', limit: config.RATE_LIMIT_DATA_MINUTE, kind: 'bucket', periodSeconds: 60 },
      { name: 'data-day', limit: config.RATE_LIMIT_DATA_DAY, kind: 'utc-day', periodSeconds: 86_400 },
    ],
  };
}

const DATA_PREFIX = '/api/v1/public';

/**
 * Which limits apply to a request; null means not limited (pages, prebuilt assets, /healthz).
 *
 * - `/api/v1/public` and below, any method: 'data' (the community data interface), because
 *   issue 4 wants its headers on every one of its responses. Its GETs are CORS-simple requests,
 *   so a browser sends no preflight before them: an OPTIONS there is not a page's extra cost.
 * - `POST /api/chat`: 'chat'; `POST /api/contact`: 'contact'.
 * - Any other `/api/*` and `/sellers.json`: 'site'; `GET /api/chat` (a 405) too.
 * - CORS preflights (`OPTIONS`) on the site paths: 'site'. A browser sends one before each
 *   cross-origin POST; charging it to chat-minute would halve what a legitimate page may send,
 *   while site-minute still bounds a preflight flood.
 *
 * `pathname` should be the URL's pathname as the router will see it (`new URL(...).pathname`).
 * It is percent-decoded and its empty segments and trailing slash are dropped here, so
 * `/api//%63hat/` cannot slip past the chat limits if the router is lenient about spelling.
 */
export function routeClassOf(method: string, pathname: string): RouteClass | null {
  const path = normalisePath(pathname);
  if (path !== '/sellers.json' && path !== '/api' && !path.startsWith('/api/')) return null;
  // Every response of the data interface carries its own headers (issue 4), whatever the method.
  if (path === DATA_PREFIX || path.startsWith(`${DATA_PREFIX}/`)) return 'data';
  const verb = method.toUpperCase();
  if (verb === 'OPTIONS') return 'site';
  if (verb === 'POST' && path === '/api/chat') return 'chat';
  if (verb === 'POST' && path === '/api/contact') return 'contact';
  return 'site';
}

function normalisePath(pathname: string): string {
  let path = pathname;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    // A malformed escape (`%zz`): the router will not decode it either; classify it as written.
  }
  path = path.replace(/\/{2,}/g, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  return path;
}
