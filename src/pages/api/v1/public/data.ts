/** Get Data (interface spec section 4): an adapter over features/stats. */
import type { APIRoute } from 'astro';
import { handleData } from '../../../../features/stats/data-handler.server.ts';

export const prerender = false;

export const GET: APIRoute = ({ request, locals }) => handleData(request, locals.services);

/** Any other method: the handler answers 405 with `Allow: GET, HEAD` in the data interface's error shape. */
export const ALL: APIRoute = ({ request, locals }) => handleData(request, locals.services);
