/** The contact form's proof-of-work challenge: the challenge endpoint under `astro dev`. */
import { PATHS } from '../../../lib/paths.ts';
import { astroEndpoint } from '../../../server/astro-endpoint.ts';

export const prerender = false;
export const ALL = astroEndpoint(PATHS.contactChallenge);
