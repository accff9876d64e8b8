/**
 * What the edge reports of each finished request to whoever watches (the metrics feature,
 * wired by the composition root): one plain record per request, made in the pipeline's stage
 * after the endpoint, never by tapping `res`. Labels come from the route table, never from the
 * request, so a flood of random paths or client addresses cannot mint new series.
 */
export interface RequestObservation {
  /** The route table's name for the path (`Route.path`), or `other` for anything it does not name. */
  route: string;
  /** The request method when it is one the edge knows, otherwise `other`. */
  method: string;
  /** The status the client really got (499 when it went away first). */
  status: number;
  /** From arrival to the last byte handed to the socket, in seconds. */
  durationSeconds: number;
  /** Body bytes written to the client. */
  bytesSent: number;
  /** How the response cache took part: `hit`, `miss` (looked up, stored or not), or `none` (not cacheable). */
  responseCache: 'hit' | 'miss' | 'none';
  /** Whether a prebuilt file answered from the static hot cache (`hit`), from disk (`miss`), or none did (`none`). */
  staticFile: 'hit' | 'miss' | 'none';
  /** The rate class the request spent and what the limiter decided; absent when not limited. */
  rateLimit?: { class: string; outcome: 'allowed' | 'refused' | 'degraded' } | undefined;
}

/** Called once per finished request; must not throw and must not block (it runs on the hot path). */
export type RequestObserver = (observation: RequestObservation) => void;
