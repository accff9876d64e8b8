/**
 * Which limits apply to which request (docs/interface.md section 6).
 *
 * A route class names a list of windows; a request consumes one unit from every window of its
 * class, and windows with the same name are the same bucket whatever route consumed from them
 * (`site-minute` is shared by every site route, chat and contact included).
 */
import type { RateClass, Window } from '../../lib/rate-class.ts';

export type { RateClass, Window };

/** The settings this module reads (README "Rate limits"); src/app/config.ts's `Config` satisfies it. */
export interface RateLimitSettings {
  RATE_LIMIT_SITE_MINUTE: number;
  RATE_LIMIT_PAGE_MINUTE: number;
  RATE_LIMIT_CHAT_MINUTE: number;
  RATE_LIMIT_CHAT_DAY: number;
  RATE_LIMIT_CONTACT_HOUR: number;
  RATE_LIMIT_CONTACT_DAY: number;
  RATE_LIMIT_DATA_MINUTE: number;
  RATE_LIMIT_DATA_DAY: number;
  RATE_LIMIT_SIGN_IN_HOUR: number;
}

/**
 * The defaults of the RATE_LIMIT_* variables: the configuration schema (src/app/config.ts)
 * defaults to these, and the OpenAPI document, built without a configuration, quotes them.
 */
export const RATE_LIMIT_DEFAULTS: Readonly<RateLimitSettings> = Object.freeze({
  RATE_LIMIT_SITE_MINUTE: 300,
  RATE_LIMIT_PAGE_MINUTE: 240,
  RATE_LIMIT_CHAT_MINUTE: 10,
  RATE_LIMIT_CHAT_DAY: 200,
  RATE_LIMIT_CONTACT_HOUR: 20,
  RATE_LIMIT_CONTACT_DAY: 100,
  RATE_LIMIT_DATA_MINUTE: 60,
  RATE_LIMIT_DATA_DAY: 5000,
  RATE_LIMIT_SIGN_IN_HOUR: 60,
});

/**
 * The windows of each route class, in the order RateLimit-Policy lists them.
 * Defaults (`RATE_LIMIT_DEFAULTS`): site 300/min; pages 240/min; chat 10/min + 200/day;
 * contact 20/h + 100/day; data 60/min + 5,000 per UTC day; sign-in 60/h.
 */
export function policiesFromConfig(config: RateLimitSettings): Record<RateClass, Window[]> {
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
    // The console's passkey ceremonies (two requests each): a burst for a person who fumbles,
    // then one a minute, so nobody can hammer sign-in or spend invites at will.
    'sign-in': [site, { name: 'sign-in-hour', limit: config.RATE_LIMIT_SIGN_IN_HOUR, kind: 'bucket', periodSeconds: 3_600 }],
  };
}
