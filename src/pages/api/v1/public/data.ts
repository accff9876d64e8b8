/** Get Data (docs/interface.md section 3): the data endpoint under `astro dev`. */
import { PATHS } from '../../../../lib/paths.ts';
import { astroEndpoint } from '../../../../server/astro-endpoint.ts';

export const prerender = false;
export const ALL = astroEndpoint(PATHS.data);
