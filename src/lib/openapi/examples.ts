/**
 * Helpers for realistic examples. Where a pure function of a feature produces the real value (a
 * parse error, an origin refusal, an error body), the example is computed with it, so its
 * wording is the wording clients will see. Unit tests check every example against its schema.
 */
import { HttpError, renderError, type ErrorCode, type HttpErrorInit } from '../http-error.ts';

/** A named example (OpenAPI Example Object). */
export interface NamedExample {
  summary: string;
  value: unknown;
}

/** Named examples of one response, keyed by a short name (the `code` for site problems). */
export type Examples = Record<string, NamedExample>;

/** The body `renderError` writes for `error` on `pathname`, parsed. */
export function errorBody(error: HttpError, pathname: string): Record<string, unknown> {
  return JSON.parse(renderError(error, pathname).body) as Record<string, unknown>;
}

/** The body of `new HttpError(code, init)` as `pathname`'s interface renders it. */
export function problemExample(pathname: string, code: ErrorCode, init: HttpErrorInit = {}): Record<string, unknown> {
  return errorBody(new HttpError(code, init), pathname);
}

/** The HttpError a pure parser throws for `run`, as a rendered body. */
export function thrownBody(run: () => unknown, pathname: string): Record<string, unknown> {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return errorBody(error, pathname);
    throw error;
  }
  throw new Error(`expected ${pathname} example input to be refused`);
}

/** The site interface's 429, as the edge writes it for `scope`. */
export function siteRateLimitedExample(scope: string, retryAfter: number, pathname: string): Record<string, unknown> {
  return problemExample(pathname, 'rate_limited', {
    detail: `The ${scope} limit is used up for this client.`,
    resolution: `Wait ${retryAfter} seconds (Retry-After) before retrying.`,
    extensions: { scope, retryAfter },
  });
}
