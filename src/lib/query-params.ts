/**
 * Strict query strings: a resource that defines its parameters refuses any other, rather than
 * ignoring it, so one response has one spelling (and one cache entry) and a typo such as
 * `startdate` is reported instead of answered as if the parameter were absent.
 */

import { HttpError, interfaceOf } from './http-error.ts';

/** Echo client input in a message, bounded so a megabyte of garbage does not come back. */
export function shown(value: unknown): string {
  const text = String(value);
  return JSON.stringify(text.length > 24 ? `${text.slice(0, 24)}…` : text);
}

/** The message naming the parameters of `params` outside `accepted`; undefined when there are none. */
export function unknownParameters(params: URLSearchParams, accepted: readonly string[]): string | undefined {
  const unknown: string[] = [];
  for (const name of params.keys()) if (!accepted.includes(name) && !unknown.includes(name)) unknown.push(name);
  if (unknown.length === 0) return undefined;
  const names = unknown.slice(0, 3).map(shown).join(', ');
  const more = unknown.length > 3 ? ` and ${unknown.length - 3} more` : '';
  return `unknown parameter${unknown.length === 1 ? '' : 's'} ${names}${more}: only ${accepted.join(' and ')} ${accepted.length === 1 ? 'is' : 'are'} accepted`;
}

/**
 * The 400 for parameters a strict route does not take, in its interface's code: judged once, by
 * the edge (src/server/admit.ts) or, under `astro dev`, by the endpoint adapter (endpoint.ts).
 */
export function unknownParametersError(pathname: string, message: string, accepted: readonly string[]): HttpError {
  return new HttpError(interfaceOf(pathname) === 'data' ? 'SVC1005' : 'validation_failed', { detail: message, resolution: `Send only ${accepted.join(' and ')}.` });
}
