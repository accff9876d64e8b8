/**
 * What can go wrong when fetching from the community data interface, as one error family an
 * integrator can branch on (`error instanceof DailyQuotaExceededError`, or `error.code`).
 *
 * Cancellation is not part of it: an aborted call rejects with the signal's own reason (an
 * `AbortError` DOMException unless the caller chose another), as `fetch` does.
 */

export type DataClientErrorCode =
  | 'invalid_argument'
  | 'invalid_request'
  | 'unauthorized'
  | 'daily_quota_exceeded'
  | 'rate_limited'
  | 'server_unavailable'
  | 'unexpected_response';

/** Base class of every error the data client throws itself. */
export class DataClientError extends Error {
  /** Stable machine-readable kind of the failure. */
  readonly code: DataClientErrorCode;

  constructor(code: DataClientErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = 'DataClientError';
  }
}

/** An option given to the client is wrong; found before any request is sent. */
export class InvalidArgumentError extends DataClientError {
  /** Name of the option at fault: `from`, `to`, `baseUrl`, `concurrency`, `retry.maxAttempts`, ... */
  readonly argument: string;
  /** What is wrong with it, without the option's name. */
  readonly detail: string;

  constructor(argument: string, detail: string) {
    super('invalid_argument', `${argument} ${detail}`);
    this.argument = argument;
    this.detail = detail;
    this.name = 'InvalidArgumentError';
  }
}

/** The server refused a request and said why: its status, and its `{code, message}` when it sent one. */
export class ServerRefusalError extends DataClientError {
  /** HTTP status of the refusal. */
  readonly status: number;
  /** The server's error code (`SVC1005`, `unauthorized`), when it sent one. */
  readonly serverCode: string | undefined;
  /** The server's message, verbatim: it names the rule that failed. */
  readonly serverMessage: string | undefined;

  constructor(code: DataClientErrorCode, message: string, status: number, serverCode: string | undefined, serverMessage: string | undefined) {
    super(code, message);
    this.status = status;
    this.serverCode = serverCode;
    this.serverMessage = serverMessage;
    this.name = 'ServerRefusalError';
  }
}

/** The server refused the request's parameters: 400 `SVC1005` (docs/interface.md section 5). */
export class InvalidRequestError extends ServerRefusalError {
  /** The server's error code, e.g. `SVC1005`. */
  declare readonly serverCode: string;
  declare readonly serverMessage: string;

  constructor(status: number, serverCode: string, serverMessage: string, month: string) {
    super('invalid_request', `the data API refused ${month}: ${serverMessage} (${serverCode})`, status, serverCode, serverMessage);
    this.name = 'InvalidRequestError';
  }
}

/**
 * The server refused the credentials: 401 with `WWW-Authenticate: Bearer error="invalid_token"`
 * (RFC 6750 section 3) for an unknown, revoked or malformed key, or without `error` when the
 * request carried none and one is required. Not retried: the same token fails the same way.
 * Neither the message nor any field holds the token.
 */
export class UnauthorizedError extends ServerRefusalError {
  /** The `error` parameter of the Bearer challenge (`invalid_token`), when the server gave one. */
  readonly challengeError: string | undefined;

  constructor(status: number, withToken: boolean, challengeError: string | undefined, serverCode?: string, serverMessage?: string) {
    const what = withToken ? 'refused the API token' : 'asks for an API token';
    const why = serverMessage === undefined ? '' : `: ${serverMessage}`;
    const tags = [serverCode, challengeError].filter((tag) => tag !== undefined);
    super('unauthorized', `the data API ${what} (${status})${why}${tags.length > 0 ? ` (${tags.join(', ')})` : ''}`, status, serverCode, serverMessage);
    this.challengeError = challengeError;
    this.name = 'UnauthorizedError';
  }
}

/** The daily request quota is spent; nothing more will be answered before `resetsAt`. */
export class DailyQuotaExceededError extends DataClientError {
  /** When the quota starts over: the next 00:00 UTC. */
  readonly resetsAt: Date;

  constructor(resetsAt: Date) {
    super('daily_quota_exceeded', `the daily request quota of the data API is spent; it resets at ${resetsAt.toISOString()} (00:00 UTC)`);
    this.resetsAt = resetsAt;
    this.name = 'DailyQuotaExceededError';
  }
}

/** Still refused by the per-minute rate limit after every allowed attempt. */
export class RateLimitedError extends DataClientError {
  /** The server's last Retry-After, in milliseconds. */
  readonly retryAfterMs: number | undefined;
  readonly attempts: number;

  constructor(attempts: number, retryAfterMs: number | undefined) {
    super('rate_limited', `the data API still refused the request after ${attempts} attempts (rate limit exceeded)`);
    this.retryAfterMs = retryAfterMs;
    this.attempts = attempts;
    this.name = 'RateLimitedError';
  }
}

/** The server could not be reached, or answered 5xx, on every allowed attempt. */
export class ServerUnavailableError extends DataClientError {
  /** Status of the last answer, when there was one. */
  readonly status: number | undefined;
  readonly attempts: number;

  constructor(url: string, attempts: number, status: number | undefined, cause: unknown) {
    const reason = status === undefined ? `could not be reached (${describe(cause)})` : `answered ${status}`;
    super('server_unavailable', `the data API at ${url} ${reason} on ${attempts} attempt${attempts === 1 ? '' : 's'}`, { cause });
    this.status = status;
    this.attempts = attempts;
    this.name = 'ServerUnavailableError';
  }
}

/** The server answered something this client does not understand (wrong base URL, another service, a changed format). */
export class UnexpectedResponseError extends DataClientError {
  readonly status: number;

  constructor(url: string, status: number, detail: string) {
    super('unexpected_response', `unexpected answer from ${url}: ${detail}`);
    this.status = status;
    this.name = 'UnexpectedResponseError';
  }
}

function describe(cause: unknown): string {
  if (!(cause instanceof Error)) return String(cause);
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED ...) in `cause`.
  const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
  return `${cause.message}${inner}`;
}
