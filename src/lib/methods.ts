/**
 * Which methods a resource answers, decided in one place: the route table declares each route's
 * methods, and the edge (or, under `astro dev`, the one endpoint adapter) refuses any other with
 * 405 and `Allow` (RFC 9110 section 15.5.6) before the endpoint runs. HEAD is never declared: a
 * resource that answers GET answers HEAD with the same status and headers and no content (RFC
 * 9110 section 9.3.2), which the caller of the endpoint derives from the GET.
 */
import { HttpError } from './http-error.ts';

/** Methods a route may declare. */
export type Method = 'GET' | 'POST' | 'OPTIONS' | 'PUT' | 'PATCH' | 'DELETE';

/** Methods the edge knows at all; anything else (TRACE, CONNECT, inventions) is refused before any other work. */
export const KNOWN_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

const allowHeaders = new WeakMap<readonly Method[], string>();

/** The `Allow` value of a method list: as declared, HEAD right after GET. */
export function allowOf(methods: readonly Method[]): string {
  let allow = allowHeaders.get(methods);
  if (allow === undefined) {
    allow = methods.flatMap((m) => (m === 'GET' ? ['GET', 'HEAD'] : [m])).join(', ');
    allowHeaders.set(methods, allow);
  }
  return allow;
}

/** Whether `methods` (undefined: any known method) answer `method`; HEAD with GET. */
export function answers(methods: readonly Method[] | undefined, method: string): boolean {
  if (!KNOWN_METHODS.has(method)) return false;
  if (methods === undefined) return true;
  return methods.includes((method === 'HEAD' ? 'GET' : method) as Method);
}

/** The 405 for `method` on a resource that answers `methods` (all known ones when undefined). */
export function methodNotAllowed(method: string, methods: readonly Method[] | undefined): HttpError {
  const allow = methods === undefined ? 'GET, HEAD, POST, OPTIONS' : allowOf(methods);
  return new HttpError('method_not_allowed', {
    detail: `${method} is not supported here.`,
    resolution: `Send ${allow.replace(/, ([^,]+)$/, ' or $1')}.`,
    headers: { allow },
  });
}

/** The method an endpoint is called with: HEAD is answered from the GET. */
export function endpointMethod(method: string): string {
  return method === 'HEAD' ? 'GET' : method;
}
