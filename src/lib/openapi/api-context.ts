/**
 * What every operation of the OpenAPI document is built from: the public origins (code samples
 * and examples name them) and the rate-limit windows (descriptions quote their figures). The
 * features' `*.openapi.ts` factories take this and nothing else, so they need no configuration;
 * the document's assembler (src/api-docs/context.ts) makes it.
 */
import type { RateClass, Window } from '../rate-class.ts';

export interface ApiContext {
  /** Origin of the site interface, without a trailing slash. */
  siteUrl: string;
  /** Origin of the community data interface. */
  dataUrl: string;
  policies: Record<RateClass, Window[]>;
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

/** The head of a site-interface operation limited by `windows`: its description ends with the limits, a paragraph of their own. */
export function siteOperation(operationId: string, summary: string, description: string, windows: readonly Window[]): OperationHead {
  return { operationId, tags: ['Site'], summary, description: `${description.trimEnd()}\n\nRate limit (defaults): ${describeWindows(windows)} per client.` };
}
