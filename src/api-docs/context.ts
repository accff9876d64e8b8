/**
 * What every operation of the OpenAPI document is built from: the public origins (code samples
 * and examples name them) and the rate-limit windows (descriptions quote their figures). The
 * features' `*.openapi.ts` factories take this and nothing else, so they need no configuration.
 */
import { EnvSchema } from '../app/config.ts';
import { policiesFromConfig, type RateLimitConfig, type RateClass, type Window } from '../features/ratelimit/policies.ts';

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
  limits?: RateLimitConfig;
}

export interface ApiContext {
  /** Origin of the site interface, without a trailing slash. */
  siteUrl: string;
  /** Origin of the community data interface. */
  dataUrl: string;
  policies: Record<RateClass, Window[]>;
}

export function apiContext(options: OpenApiOptions): ApiContext {
  return {
    siteUrl: new URL(options.siteUrl).origin,
    dataUrl: new URL(options.dataUrl ?? options.siteUrl).origin,
    policies: policiesFromConfig(options.limits ?? EnvSchema.parse({})),
  };
}

/** `300 per minute (\`site-minute\`), 1,000 per UTC day (\`chat-day\`)` for a description. */
export function describeWindows(windows: readonly Window[]): string {
  const per = (w: Window) => (w.kind === 'utc-day' ? 'per UTC day' : w.periodSeconds === 60 ? 'per minute' : w.periodSeconds === 3600 ? 'per hour' : `per ${w.periodSeconds} s`);
  return windows.map((w) => `${w.limit.toLocaleString('en')} ${per(w)} (\`${w.name}\`)`).join(', ');
}

/** What names and describes an operation. */
export interface OperationHead {
  operationId: string;
  tags: string[];
  summary: string;
  description: string;
}

/** The head of a site-interface operation limited by `windows`: its description ends with the limits. */
export function siteOperation(operationId: string, summary: string, description: string, windows: readonly Window[]): OperationHead {
  return { operationId, tags: ['Site'], summary, description: `${description}Rate limit (defaults): ${describeWindows(windows)} per client.` };
}
