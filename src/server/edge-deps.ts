/**
 * What the edge (src/server/http.ts) is given by the composition root (src/app/app.ts): Astro's
 * handler, what the route table's endpoints need, the rate limiter and the per-request settings.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { OriginSettings } from '../lib/cors-decision.ts';
import type { HttpError } from '../lib/http-error.ts';
import type { RequestObserver } from './observation.ts';
import type { ResponseCache } from './response-cache.ts';
import type { EndpointDeps, RateClass } from './routes.ts';
import type { StaticFiles } from './static-files.ts';

/** Astro's Node adapter handler in middleware mode. */
export type AstroHandler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void, locals: App.Locals) => void | Promise<void>;

/** What the edge asks the rate limiter for a request of a limited route. */
export interface EdgeLimiter {
  /** The outcome itself when the limiter knows it at once (its in-process store), else its promise. */
  check(rateClass: RateClass, clientKey: string, headers: IncomingHttpHeaders): LimitOutcome | Promise<LimitOutcome>;
}
export interface LimitOutcome {
  /** Headers every response of this request carries (RateLimit-*, X-RateLimit-*). */
  headers: Record<string, string>;
  /** Present when the request is refused; rendered as 429 before any other work. */
  refused?: HttpError;
  /**
   * Called by the pipeline's stage after the answer with its status, before the head is written;
   * returns headers to replace (a 304 gives its day unit back).
   */
  onStatus?: ((status: number) => Record<string, string> | undefined) | undefined;
  /** Set when the shared store was unreachable and the limit was judged from this instance's memory alone. */
  degraded?: boolean;
}

export interface EdgeDeps {
  log: Logger;
  astro: AstroHandler;
  /**
   * What the endpoints the route table binds need (src/lib/endpoint.ts), read per request: the
   * services exist once the server listens.
   */
  endpointDeps: () => EndpointDeps;
  statics: StaticFiles;
  cache: ResponseCache;
  limiter?: EdgeLimiter;
  clientKey?: (req: IncomingMessage) => string;
  /**
   * Origins whose pages may call the write endpoints and read the limit headers, and whether a
   * gated route (the chat) answers requests without Origin: the settings of the one CORS decision
   * (src/lib/cors-decision.ts). Read per request: PORT=0 learns its origin at listen.
   */
  origins: () => OriginSettings;
  https: boolean;
  /** The site's public host, handed to Astro as Host (read per request, as above). */
  siteHost: () => string;
  /** Whether the peer is a proxy TRUST_PROXY names: only then is its X-Request-Id taken. None: never. */
  trustedProxy?: (req: IncomingMessage) => boolean;
  /** /readyz: resolves when the service can take writes, rejects with the reason otherwise (and logs it: the edge does not). */
  ready: () => Promise<void>;
  /** Named in /readyz answers, e.g. `{ database: 'sqlite' }`. */
  readyDetails: Record<string, string>;
  /** What Astro's handlers receive as `locals` for one request. */
  locals: (requestId: string, clientKey: string) => App.Locals;
  /** Told of every finished request, in the stage after the endpoint (src/server/observation.ts). None: nobody watches. */
  observe?: RequestObserver;
}
