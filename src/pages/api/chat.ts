/** sendChatMessage (interface spec section 4): an adapter over features/chat. */
import type { APIRoute } from 'astro';
import type { Services } from '../../app/services.ts';
import { handleChat, handlePreflight, methodNotAllowed } from '../../features/chat/chat.server.ts';
import type { KnowledgeIndex } from '../../features/chat/knowledge-index.ts';
import { PATHS } from '../../lib/paths.ts';
import { routeOf } from '../../server/routes.ts';

export const prerender = false;

// The route table's limit, the one the edge enforced while reading the body.
const maxBodyBytes = routeOf(PATHS.chat).bodyLimit;

/**
 * The search index: the server opens the one `astro build` wrote, at start-up. Under `astro dev`
 * it is built in memory from the collections; the build drops this branch (import.meta.env.DEV
 * is false there), so the server bundle never loads the collections for the assistant.
 */
function knowledge(services: Services): KnowledgeIndex | Promise<KnowledgeIndex> {
  if (import.meta.env.DEV) return import('../../features/chat/content-corpus.server.ts').then((corpus) => corpus.devKnowledgeIndex());
  if (!services.assistantIndex) throw new Error('the server was started without the assistant index');
  return services.assistantIndex;
}

export const POST: APIRoute = ({ request, locals }) => handleChat(request, locals.services, { knowledge: () => knowledge(locals.services), maxBodyBytes });

export const OPTIONS: APIRoute = ({ request, locals }) => handlePreflight(request, locals.services);

export const ALL: APIRoute = ({ request }) => methodNotAllowed(request);
