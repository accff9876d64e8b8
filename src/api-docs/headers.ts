/**
 * Response and request headers of the published API (interface spec section 8), as zod objects
 * for zod-openapi. The names and meanings are the ones src/features/ratelimit/headers.ts writes
 * and src/server/http.ts serves; the contract tests check every real response against them.
 */
import { z } from 'zod';
import type { Window } from '../features/ratelimit/policies.ts';
import { MISSING_DAYS_PATTERN } from '../features/stats/settled.ts';

/** A header holding a whole number (HTTP fields are text; the schema describes the number). */
const count = (description: string, example: number) => z.int().nonnegative().meta({ description, examples: [example] });

/**
 * `limit;w=seconds` items, comma-separated, as `siteHeaders` writes RateLimit-Policy; or, with
 * RATE_LIMIT_DRAFT_HEADERS on, the current draft's `"name";q=limit;w=seconds` items (`draftHeaders`).
 */
const POLICY_PATTERN = /^(\d+;w=\d+(, \d+;w=\d+)*|"[a-z-]+";q=\d+;w=\d+(, "[a-z-]+";q=\d+;w=\d+)*)$/;
/** The draft's live field: `"name";r=remaining;t=seconds` items. */
const LIVE_PATTERN = /^"[a-z-]+";r=\d+;t=\d+(, "[a-z-]+";r=\d+;t=\d+)*$/;

/**
 * The opt-in pair of draft-ietf-httpapi-ratelimit-headers-10 (RATE_LIMIT_DRAFT_HEADERS=true):
 * present on every rate-limited response of both interfaces when the operator turns it on.
 */
export function draftRateLimitHeaders(windows: readonly Window[]) {
  const policy = windows.map((w) => `"${w.name}";q=${w.limit};w=${w.periodSeconds}`).join(', ');
  const live = windows.map((w) => `"${w.name}";r=${w.limit - 1};t=${w.kind === 'bucket' ? 1 : 3600}`).join(', ');
  return z.object({
    RateLimit: z
      .string()
      .regex(LIVE_PATTERN)
      .optional()
      .meta({ description: 'Opt-in (IETF draft-ietf-httpapi-ratelimit-headers-10): each window as `"name";r=requests left;t=seconds until full again`.', examples: [live] }),
  }).extend({
    'RateLimit-Policy': z
      .string()
      .regex(POLICY_PATTERN)
      .optional()
      .meta({ description: 'Opt-in: each window as `"name";q=quota;w=window seconds` (the same draft; on site responses it replaces the older `limit;w=seconds` form).', examples: [policy] }),
  });
}

/** `300;w=60, 10;w=60, 200;w=86400` for a route class's windows. */
export function policyExample(windows: readonly Window[]): string {
  return windows.map((w) => `${w.limit};w=${w.periodSeconds}`).join(', ');
}

/**
 * RateLimit-* fields every site-interface response carries, for the most constrained window of
 * the route (draft-ietf-httpapi-ratelimit-headers, three-field form; Reset is delta-seconds).
 */
export function siteRateLimitHeaders(windows: readonly Window[]) {
  const headline = windows.reduce((a, b) => (b.limit < a.limit ? b : a));
  return z.object({
    'RateLimit-Limit': count('Requests allowed in the most constrained window of this route (IETF RateLimit header fields draft).', headline.limit),
    'RateLimit-Remaining': count('Requests left in that window; 0 on a 429.', headline.limit - 1),
    'RateLimit-Reset': count('Seconds until that window is full again (delta-seconds, not a timestamp).', 6),
    'RateLimit-Policy': z
      .string()
      .regex(POLICY_PATTERN)
      .meta({ description: 'Every window of this route as `limit;w=seconds`, comma-separated.', examples: [policyExample(windows)] }),
    RateLimit: draftRateLimitHeaders(windows).shape.RateLimit,
  });
}

/** What a refused (429) site request carries on top: when to retry and which window is spent. */
export function siteRefusedHeaders(windows: readonly Window[]) {
  const scopes = windows.map((w) => w.name) as [string, ...string[]];
  return siteRateLimitHeaders(windows).extend({
    'Retry-After': z
      .int()
      .min(1)
      .meta({ description: 'Seconds to wait before this request would be admitted (RFC 9110 section 10.2.3).', examples: [6] }),
    'X-RateLimit-Scope': z.enum(scopes).meta({ description: 'The exhausted window.', examples: [scopes.at(-1)!] }),
  });
}

/**
 * GitHub-style fields every community data response carries: the minute window (Reset is an
 * absolute Unix time) and the UTC day's quota.
 */
export function dataRateLimitHeaders(windows: readonly Window[]) {
  const minute = windows.find((w) => w.kind === 'bucket');
  const day = windows.find((w) => w.kind === 'utc-day');
  return z.object({
    'X-RateLimit-Remaining': count('Requests remaining in the current time window.', (minute?.limit ?? 60) - 1),
    'X-RateLimit-Reset': count('Unix timestamp (seconds) at which the current window is full again.', 1_785_600_060),
    'X-Daily-Quota-Remaining': count('Requests remaining for the current UTC day. With an API key: the key\'s own windows. A 304 Not Modified does not spend the day.', (day?.limit ?? 5000) - 1),
  }).extend(draftRateLimitHeaders(windows).shape);
}

/** The challenge of a data-interface 401 (RFC 6750 section 3). */
export const BearerChallengeHeaders = z.object({
  'WWW-Authenticate': z.literal('Bearer realm="data", error="invalid_token"').meta({ description: 'The Bearer challenge: the token presented is unknown, revoked or malformed (RFC 6750 section 3.1).' }),
});

/** The data interface's 429 adds Retry-After. */
export function dataRefusedHeaders(windows: readonly Window[]) {
  return dataRateLimitHeaders(windows).extend({
    'Retry-After': z.int().min(1).meta({ description: 'Seconds to wait before retrying (RFC 9110 section 10.2.3).', examples: [42] }),
  });
}

/** Validators and freshness of cacheable GET responses (RFC 9110 section 8.8.3, RFC 9111). */
export const CachingHeaders = z.object({
  ETag: z
    .string()
    .regex(/^(W\/)?"[^"]*"$/)
    .meta({ description: 'Strong validator of the body; send it back in If-None-Match to get 304 when nothing changed.', examples: ['"mC4a0c9Vw1WQ7i3pVZbLk2Yb0qA"'] }),
  'Cache-Control': z.string().meta({ description: 'How long the response may be reused.', examples: ['public, max-age=60'] }),
});

/** Publicly readable resources answer any origin (Fetch standard, CORS protocol). */
export const PublicCorsHeaders = z.object({
  'Access-Control-Allow-Origin': z.literal('*').meta({ description: 'Any web page may read this resource.' }),
});

/** Responses that must not be stored: personal submissions, conversations, errors. */
export const NoStoreHeaders = z.object({
  'Cache-Control': z.literal('no-store').meta({ description: 'Never stored by any cache.' }),
});

/** `If-None-Match` (RFC 9110 section 13.1.2): a conditional GET. */
export const ConditionalRequestHeaders = z.object({
  'If-None-Match': z
    .string()
    .optional()
    .meta({ description: 'The ETag of a copy the client holds; the answer is then 304 without a body when it is still current.', examples: ['"mC4a0c9Vw1WQ7i3pVZbLk2Yb0qA"'] }),
});

/**
 * Which days of a community data response are final (src/features/stats/settled.ts): on every
 * 200 and 304 of Get Data.
 */
export const DataSettlementHeaders = z.object({
  'X-Data-Settled-Through': z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/)
    .meta({
      description:
        'The last settled UTC day, YYYY-MM-DD: no scheduled materialisation rewrites it or any earlier day (the nightly run rewrites only the last three complete days), so the records of these days may be kept; revalidate them with If-None-Match, since an operator may still restate one (the ETag then changes). Moves at 00:00 UTC.',
      examples: ['2026-07-27'],
    }),
  'X-Data-Missing-Days': z
    .string()
    .regex(MISSING_DAYS_PATTERN)
    .optional()
    .meta({
      description:
        'The requested days without a record (not materialised yet: today, the future, days before the first event, a pending backfill), as runs `first/last` or single days, comma-separated (ISO 8601 interval notation, both ends included). Absent when every requested day has a record. Such days may appear later: ask for them again.',
      examples: ['2026-07-29/2026-07-31'],
    }),
});
