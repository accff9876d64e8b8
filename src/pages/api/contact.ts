/**
 * submitContact (interface spec section 4): an adapter over features/contact. Every other
 * method reaches the same handler, which answers 405 with `Allow: POST` (RFC 9110 section 15.5.6).
 */
import type { APIRoute } from 'astro';
import { handleContact } from '../../features/contact/handle-contact.ts';
import { PATHS } from '../../lib/paths.ts';
import { routeOf } from '../../server/routes.ts';

export const prerender = false;

// The route table's limit, the one the edge enforced while reading the body.
const maxBodyBytes = routeOf(PATHS.contact).bodyLimit;

export const POST: APIRoute = ({ request, locals }) => handleContact(request, locals.services, { maxBodyBytes });
export const ALL: APIRoute = POST;
