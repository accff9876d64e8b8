/**
 * Which callers may use the assistant (docs/interface.md section 4: an origin that is not
 * allowed gets 403). Browsers send `Origin` on every POST, same-origin included (Fetch standard,
 * "append a request `Origin` header"), so a page of another site cannot spend our assistant and
 * rate budget on its visitors' behalf. Requests without `Origin` come from scripts and servers;
 * they are refused unless `CHAT_ALLOW_NO_ORIGIN` says the operator wants them.
 */
import { HttpError } from '../../lib/http-error.ts';

export interface OriginPolicy {
  /** Exact origins (scheme://host[:port]) allowed to call. */
  allowedOrigins: readonly string[];
  /** Accept requests that carry no Origin header (curl, server-to-server). */
  allowNoOrigin: boolean;
}

export type OriginDecision =
  | { allowed: true; /** The caller's origin, to echo in CORS headers; undefined without one. */ origin: string | undefined }
  | { allowed: false; reason: 'missing' | 'not_listed'; origin: string | undefined };

/**
 * Decide from the raw `Origin` header value. `null` (the serialised opaque origin of sandboxed
 * frames, `file:` pages and some redirects, RFC 6454 section 7.3) is an origin, never listed.
 */
export function checkOrigin(originHeader: string | null | undefined, policy: OriginPolicy): OriginDecision {
  const origin = originHeader?.trim() || undefined;
  if (origin === undefined) return policy.allowNoOrigin ? { allowed: true, origin } : { allowed: false, reason: 'missing', origin };
  return policy.allowedOrigins.includes(origin) ? { allowed: true, origin } : { allowed: false, reason: 'not_listed', origin };
}

/** The 403 a refused decision becomes. */
export function originError(decision: Extract<OriginDecision, { allowed: false }>): HttpError {
  return decision.reason === 'missing'
    ? new HttpError('origin_not_allowed', {
        detail: 'The request has no Origin header; the assistant only answers pages of this site and the origins its operator allows.',
        resolution: 'Call it from an allowed web page, or ask the operator to set CHAT_ALLOW_NO_ORIGIN=true for non-browser clients.',
      })
    : new HttpError('origin_not_allowed', {
        detail: `The origin ${decision.origin} may not call the assistant.`,
        resolution: 'Call it from a page of this site, or ask the operator to add your origin to ALLOWED_ORIGINS.',
      });
}
