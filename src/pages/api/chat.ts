/** sendChatMessage (interface spec section 4): an adapter over features/chat. */
import type { APIRoute } from 'astro';
import { handleChat, handlePreflight, methodNotAllowed } from '../../features/chat/chat.server.ts';
import { loadKnowledgeIndex } from '../../features/chat/content-corpus.server.ts';

export const prerender = false;

export const POST: APIRoute = ({ request, locals }) => handleChat(request, locals.services, { knowledge: loadKnowledgeIndex });

export const OPTIONS: APIRoute = ({ request, locals }) => handlePreflight(request, locals.services);

export const ALL: APIRoute = ({ request }) => methodNotAllowed(request);
