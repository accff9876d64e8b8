/**
 * The declared API routes the edge answers without Astro (src/lib/plain-http.ts), each calling
 * the same feature function, with the same options, as its Astro endpoint in src/pages/api
 * (which `astro dev` serves). Streaming replies (/api/chat) stay with Astro.
 */
import { handleContact } from '../features/contact/handle-contact.ts';
import { answerData } from '../features/stats/data-handler.server.ts';
import { PATHS } from '../lib/paths.ts';
import { fetchRequestOf, plainResponseOf, type PlainHandler } from '../lib/plain-http.ts';
import { routeOf } from '../server/routes.ts';

export function routeHandlers(): ReadonlyMap<string, PlainHandler> {
  // The route table's limit, the one the edge enforced while reading the body (as src/pages/api/contact.ts).
  const contactBodyBytes = routeOf(PATHS.contact).bodyLimit;
  return new Map<string, PlainHandler>([
    // Every method: the handler answers 405 itself in the data interface's format (src/pages/api/v1/public/data.ts).
    [PATHS.data, (request, locals) => answerData(request, locals.services)],
    // handleContact reads a Fetch Request (its body checks live in src/lib/json-body.ts).
    [PATHS.contact, async (request, locals) => plainResponseOf(await handleContact(fetchRequestOf(request), locals.services, { maxBodyBytes: contactBodyBytes }))],
  ]);
}
