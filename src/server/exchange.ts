/**
 * One request as the edge's stages see it (http.ts), and what the stages share. Everything a
 * later stage needs from an earlier one travels here, as a field: the route, the pending head, the
 * limiter's outcome, the prebuilt file and the cache key found once at admission, and what the
 * observation reports.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { HttpError } from '../lib/http-error.ts';
import type { AstroTap } from './astro-tap.ts';
import type { EdgeDeps, LimitOutcome } from './edge-deps.ts';
import type { Head } from './head.ts';
import type { RequestObservation } from './observation.ts';
import type { RequestTarget } from './request-target.ts';
import type { Responder } from './respond.ts';
import type { RateClass, Route } from './routes.ts';
import type { StaticFile } from './static-files.ts';

export interface Exchange {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  url: RequestTarget;
  route: Route;
  /** The 400 of a target that is no valid path, sent once its rate limit is charged. */
  refused: HttpError | undefined;
  requestId: string;
  clientKey: string;
  /** Response headers not yet written (head.ts). */
  head: Head;
  /** performance.now() at arrival. */
  started: number;
  /** The prebuilt file at this path, found at admission. */
  file: StaticFile | undefined;
  /** The response-cache key of a read, computed once at admission; undefined: not cacheable. */
  cacheKey: string | undefined;
  /** What the limiter said, and its word on the final status (a 304's refund). */
  limit: LimitOutcome | undefined;
  rateClass: RateClass | null;
  /** Set only while Astro writes the response itself (astro-tap.ts). */
  tap: AstroTap | undefined;
  cache: RequestObservation['responseCache'];
  staticFile: RequestObservation['staticFile'];
  /** Body bytes handed to the socket. */
  bytesSent: number;
}

/** What the edge's stages share: its dependencies, its writer and the not-found page. */
export interface EdgeParts {
  deps: EdgeDeps;
  out: Responder;
  notFoundEntry: StaticFile | undefined;
}

export interface Edge {
  server: Server;
  /** The node:http request listener. */
  onRequest: (req: IncomingMessage, res: ServerResponse) => void;
  /** From now on every response closes its connection, so keep-alive clients let go. */
  startDraining(): void;
}
