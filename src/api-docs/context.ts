/**
 * The inputs of the OpenAPI document and the `ApiContext` every operation is built from
 * (src/lib/openapi/api-context.ts). The rate-limit figures default to the configuration's
 * defaults, which the rate-limit feature holds, so the document is built at `astro build`
 * without reading a configuration.
 */
import { policiesFromConfig, RATE_LIMIT_DEFAULTS, type RateLimitSettings } from '../features/ratelimit/policies.ts';
import type { ApiContext } from '../lib/openapi/api-context.ts';

/** The published version of the site interface (docs/interface.md section 8). */
export const API_VERSION = '1.0.0';

export interface OpenApiOptions {
  /** The service's name, for the document title (the site's own name, from the caller). */
  siteName: string;
  /** Public origin of the site interface, e.g. https://meridian-exchange.example. */
  siteUrl: string | URL;
  /** Origin of the community data interface; the site's own origin in this deployment. */
  dataUrl?: string | URL;
  /** Rate-limit figures quoted in descriptions and examples; the configuration defaults otherwise. */
  limits?: RateLimitSettings;
}

export function apiContext(options: OpenApiOptions): ApiContext {
  return {
    siteUrl: new URL(options.siteUrl).origin,
    dataUrl: new URL(options.dataUrl ?? options.siteUrl).origin,
    policies: policiesFromConfig(options.limits ?? RATE_LIMIT_DEFAULTS),
  };
}
