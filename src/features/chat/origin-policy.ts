/**
 * Which callers may use the assistant (docs/interface.md section 4: an origin that is not
 * allowed gets 403), declared on the chat's route (src/server/routes.ts) as a gate of the edge's
 * one CORS decision (src/lib/cors-decision.ts, which says why): only ALLOWED_ORIGINS, and requests
 * without Origin only when `CHAT_ALLOW_NO_ORIGIN` says the operator wants them. What stays here is
 * the chat's own words for a refusal.
 */
import type { OriginGate, OriginRefusal } from '../../lib/cors-decision.ts';
import { HttpError } from '../../lib/http-error.ts';

/** The 403 a refused caller gets. */
export function originError(refusal: OriginRefusal): HttpError {
  return refusal.reason === 'missing'
    ? new HttpError('origin_not_allowed', {
        detail: 'The request has no Origin header; the assistant only answers pages of this site and the origins its operator allows.',
        resolution: 'Call it from an allowed web page, or ask the operator to set CHAT_ALLOW_NO_ORIGIN=true for non-browser clients.',
      })
    : new HttpError('origin_not_allowed', {
        detail: `The origin ${refusal.origin} may not call the assistant.`,
        resolution: 'Call it from a page of this site, or ask the operator to add your origin to ALLOWED_ORIGINS.',
      });
}

/** The chat route's CORS policy: allowed callers only; a preflight may send JSON. */
export const CHAT_ORIGIN_GATE: OriginGate = { kind: 'gate', requestHeaders: ['content-type'], refuse: originError };
