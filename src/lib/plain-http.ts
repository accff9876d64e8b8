/**
 * Route handlers over plain objects, for the declared API routes the edge answers without Astro
 * (src/server/http.ts): Astro's request pipeline cost about 250 us per request, and even a Fetch
 * `Request` in and a `Response` read back out cost 70 to 90 us of a 480 us cache miss (undici's
 * body streams; bench/NOTES.md). A feature exposes its logic once as a `PlainHandler`-shaped
 * function; its Astro endpoint adapts it with `fetchResponseOf`, the edge calls it directly, so
 * `astro dev` and the built server run the same code. Handlers that only exist over Fetch types
 * are adapted the other way with `fetchRequestOf` and `plainResponseOf`.
 */
import type { IncomingHttpHeaders } from 'node:http';

export interface PlainRequest {
  method: string;
  /** The normalised target the edge decided on, on the site's own origin. */
  url: URL;
  /** Lower-case names, as node parses them. */
  headers: IncomingHttpHeaders;
  /** The body the edge read within the route's limit; undefined for GET, HEAD and OPTIONS. */
  body: Uint8Array | undefined;
}

export interface PlainResponse {
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** null: no body (a HEAD or a 304). */
  body: string | Uint8Array | null;
}

export type PlainHandler = (request: PlainRequest, locals: App.Locals) => Promise<PlainResponse>;

/** One header of a node request as a single value, the way Fetch's `Headers.get` combines it. */
export function headerOf(headers: IncomingHttpHeaders, name: string): string | null {
  const value = headers[name];
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** For Astro endpoints: a plain answer as a Fetch Response. */
export function fetchResponseOf(plain: PlainResponse): Response {
  return new Response(plain.body as BodyInit | null, { status: plain.status, headers: plain.headers });
}

/** For handlers that take a Fetch Request. */
export function fetchRequestOf(plain: PlainRequest): Request {
  const headers = new Headers();
  for (const name in plain.headers) {
    const value = plain.headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else headers.append(name, value);
  }
  const hasBody = plain.body !== undefined && plain.method !== 'GET' && plain.method !== 'HEAD';
  return new Request(plain.url, { method: plain.method, headers, ...(hasBody ? { body: plain.body as BodyInit } : {}) });
}

/** For handlers that answer a Fetch Response: its status, headers and buffered body. */
export async function plainResponseOf(response: Response): Promise<PlainResponse> {
  const headers: Record<string, string> = {};
  for (const [name, value] of response.headers) headers[name] = value;
  return { status: response.status, headers, body: response.body === null ? null : new Uint8Array(await response.arrayBuffer()) };
}
