/**
 * Which limits apply to which request (docs/interface.md section 6).
 *
 * A route class names a list of windows; a request consumes one unit from every window of its
 * class, and windows with the same name are the same bucket whatever route consumed from them
 * (`site-minute` is shared by every site route, chat and contact included).
 */
import type { Config } from '../../app/config.ts';
import type { RateClass } from '../../lib/rate-class.ts';

export type { RateClass };

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
  | 'RATE_LIMIT_PAGE_MINUTE'
  | 'RATE_LIMIT_CHAT_MINUTE'
  | 'RATE_LIMIT_CHAT_DAY'
  | 'RATE_LIMIT_CONTACT_HOUR'
  | 'RATE_LIMIT_CONTACT_DAY'
  | 'RATE_LIMIT_DATA_MINUTE'
  | 'RATE_LIMIT_DATA_DAY'
>;

/**
 * The windows of each route class, in the order RateLimit-Policy lists them.
 * Defaults (src/app/config.ts): site 300/min; pages 240/min; chat 10/min + 200/day; contact 20/h + 100/day;
 * data 60/min + 5,000 per UTC day.
 */
export function policiesFromConfig(config: RateLimitConfig): Record<RateClass, Window[]> {
  const site: Window = { name: 'site-minute', limit: config.RATE_LIMIT_SITE_MINUTE, kind: 'bucket', periodSeconds: 60 };
  return {
    site: [site],
    // Pages are site responses too (they carry the headers), in a bucket of their own so that
    // browsing does not eat into the API's minute, and one client cannot render /stats/ at will.
    page: [{ name: 'page-minute', limit: config.RATE_LIMIT_PAGE_MINUTE, kind: 'bucket', periodSeconds: 60 }],
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
