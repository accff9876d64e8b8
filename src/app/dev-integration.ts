/**
 * The Astro integration that gives `astro dev` the production services (dev-services.ts). It
 * adds a Connect middleware in `astro:server:setup` (Astro's integration API: `server` is Vite's
 * dev server, whose middlewares run before Astro's own route handler), builds the services once,
 * at the first request (the bound port is known by then), and closes the database in
 * `astro:server:done`. `astro build` never calls these hooks, so nothing of this reaches dist/,
 * and the services module is loaded only when a dev server starts.
 */
import type { AddressInfo } from 'node:net';
import type { AstroIntegration } from 'astro';
import type { DevServices } from './dev-services.ts';

const CONTENT_CORPUS = '/src/features/chat/content-corpus.server.ts';

export function devServices(): AstroIntegration {
  let opening: Promise<DevServices> | undefined;
  return {
    name: 'adtech:dev-services',
    hooks: {
      'astro:server:setup': ({ server }) => {
        // The assistant's index is built from the content collections, which only exist inside
        // Vite's module graph (astro:content): loaded through it, on the first chat request.
        const assistantIndex = () => server.ssrLoadModule(CONTENT_CORPUS).then((corpus) => (corpus as typeof import('../features/chat/content-corpus.server.ts')).devAssistantIndex());
        server.middlewares.use((req, res, next) => {
          opening ??= import('./dev-services.ts').then(({ openDevServices }) => openDevServices(server.httpServer?.address() as AddressInfo, assistantIndex));
          // A bad variable or an unusable database fails every request with the reason (start-up's
          // ConfigError line), which Vite logs and shows in its error overlay.
          opening.then((dev) => dev.middleware(req, res, next), next);
        });
      },
      'astro:server:done': async () => {
        const closing = opening;
        opening = undefined;
        await (await closing?.catch(() => undefined))?.close();
      },
    },
  };
}
