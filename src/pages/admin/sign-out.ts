/** The console's sign-out endpoint (src/features/console) under `astro dev`; the edge calls it directly. */
import { PATHS } from '../../lib/paths.ts';
import { astroEndpoint } from '../../server/astro-endpoint.ts';

export const prerender = false;
export const ALL = astroEndpoint(PATHS.consoleSignOut);
