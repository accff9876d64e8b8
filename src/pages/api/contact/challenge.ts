/**
 * `GET /api/contact/challenge`: a proof-of-work challenge for the contact form (ALTCHA), or 204
 * when the check is off (src/features/contact/altcha.server.ts). Every other method: 405.
 */
import type { APIRoute } from 'astro';
import { handleChallenge } from '../../../features/contact/altcha.server.ts';
import { errorResponse, HttpError } from '../../../lib/http-error.ts';
import { PATHS } from '../../../lib/paths.ts';

export const prerender = false;

export const GET: APIRoute = ({ locals }) => handleChallenge(locals.services.config.CONTACT_ALTCHA_HMAC_KEY);
export const HEAD: APIRoute = ({ locals }) => handleChallenge(locals.services.config.CONTACT_ALTCHA_HMAC_KEY, 'HEAD');
export const ALL: APIRoute = ({ request }) =>
  errorResponse(new HttpError(405, 'method_not_allowed', { detail: `${request.method} is not supported here.`, resolution: 'Fetch a challenge with GET.', headers: { allow: 'GET, HEAD' } }), PATHS.contactChallenge);
