/** sendChatMessage (interface spec section 4): an adapter over features/chat. */
import type { APIRoute } from 'astro';
import { handleChat, handlePreflight, methodNotAllowed } from '../../features/chat/chat.server.ts';
import { loadKnowledgeIndex } from '../../features/chat/content-corpus.server.ts';
import { PATHS } from '../../lib/paths.ts';
import { routeOf } from '../../server/routes.ts';

export const prerender = false;

// The route table's limit, the one the edge enforced while reading the body.
const maxBodyBytes = routeOf(PATHS.chat).bodyLimit;

export const POST: APIRoute = ({ request, locals }) => handleChat(request, locals.services, { knowledge: loadKnowledgeIndex, maxBodyBytes });

export const OPTIONS: APIRoute = ({ request, locals }) => handlePreflight(request, locals.services);

export const ALL: APIRoute = ({ request }) => methodNotAllowed(request);
