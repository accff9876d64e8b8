/**
 * Fetching a seller's ads.txt or app-ads.txt the way the ads.txt 1.1 spec (section 3.1, "Access
 * method") tells a crawler to:
 * - `https://<domain>/<file>` first; `http://` only when HTTPS cannot be reached at all (no TLS,
 *   refused, timed out), never after an HTTP answer;
 * - redirects (301, 302, 307, 308) are followed any number of times within the original root
 *   domain (the registrable domain, see root-domain.ts), and at most ONE redirect may leave it,
 *   the spec's "one-hop delegation" to a third party's server; a redirect from there is an error;
 * - only HTTP 200 with Content-Type text/plain is a file (an HTML "soft 404" page is not);
 *   any other 4xx (404 above all) means the site has no such file; 5xx is an outage;
 * - a time limit per request and a size limit on the body: a crawler must not hang on, or
 *   buffer, whatever a server sends. The spec sets neither; 10 s and 1 MiB are ours (the largest
 *   real ads.txt files, of big publishers, are a few hundred KiB);
 * - every request, each redirect hop included, goes through the outbound guard
 *   (src/lib/outbound-guard.ts): a domain or a Location that resolves to a loopback, private,
 *   link-local or other non-public address is refused, never fetched. A sellers file is edited by
 *   people and a redirect by anyone; a crawler of third-party sites must never reach the
 *   operator's own network. Such a refusal is a mismatch (the seller's site is not a public
 *   one), not an outage, and there is no opt-in.
 *
 * `baseUrl` (for tests only) sends every request to `<baseUrl>/<scheme>/<host><path>` instead,
 * so a local fixture server can play any number of sites; the rules above still apply to the
 * logical URLs, the guard's too when a `lookup` answers for their names.
 */
import type { LookupFunction } from 'node:net';
import { createGuardedFetch, outboundRefusal, publicFetch, refusalOf, type OutboundRefusedError } from '../../lib/outbound-guard.ts';
import { rootDomainOf } from './root-domain.ts';

export type FetchOutcome =
  | { kind: 'file'; text: string; url: string }
  /** The site answered, without a usable file: a mismatch. */
  | { kind: 'missing'; reason: string }
  /** Nothing usable came back (network, timeout, 5xx): cannot tell. `network`: no HTTP answer at all. */
  | { kind: 'unreachable'; reason: string; network?: boolean };

export interface FetchOptions {
  timeoutMs: number;
  maxBytes: number;
  /** Tests: route requests to a fixture server (see above). */
  baseUrl?: string | undefined;
  /** Tests: the resolver the guard asks (dns.lookup by default). */
  lookup?: LookupFunction | undefined;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 1024 * 1024;
const MAX_REDIRECTS = 10;
const REDIRECTS = new Set([301, 302, 307, 308]);

/** The URL actually requested for a logical one. */
export function physicalUrl(logical: URL, baseUrl: string | undefined): string {
  if (baseUrl === undefined) return logical.href;
  return `${baseUrl.replace(/\/$/, '')}/${logical.protocol.slice(0, -1)}/${logical.host}${logical.pathname}${logical.search}`;
}

/** Why a request failed, in a few words (undici wraps the system error in `cause`). */
function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const message = typeof cause?.message === 'string' ? cause.message : error instanceof Error ? error.message : String(error);
  return code ? `${code}${message.includes(code) ? '' : ` (${message})`}` : message;
}

class TooLarge extends Error {}

/** Guarded fetches by injected resolver: one keep-alive pool per resolver, not per request. */
const guardedByLookup = new WeakMap<LookupFunction, typeof fetch>();

function fetchFor(options: FetchOptions): typeof fetch {
  // Test mode: the fixture server named by baseUrl is where every request goes (see above).
  if (options.baseUrl !== undefined) return fetch;
  if (options.lookup === undefined) return publicFetch();
  let guarded = guardedByLookup.get(options.lookup);
  if (guarded === undefined) guardedByLookup.set(options.lookup, (guarded = createGuardedFetch({ lookup: options.lookup })));
  return guarded;
}

function refused(url: URL, refusal: OutboundRefusedError): FetchOutcome {
  return { kind: 'missing', reason: `refused ${url.href}: ${refusal.message}; a seller's site must be on a public address` };
}

/** The body as UTF-8 text, refusing more than `maxBytes`. */
async function readBounded(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) throw new TooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new TooLarge();
    chunks.push(chunk);
  }
  return new TextDecoder('utf-8').decode(Buffer.concat(chunks));
}

/** One scheme's attempt, following redirects under the rules above. */
async function fetchFrom(start: URL, rootDomain: string, options: FetchOptions): Promise<FetchOutcome> {
  let url = start;
  let leftRoot = false;
  const doFetch = fetchFor(options);
  for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
    if (options.baseUrl !== undefined && options.lookup !== undefined) {
      // Test mode dials the fixture, not this host: judge the logical name the same way.
      const refusal = await refusalOf(url.hostname, { lookup: options.lookup }).catch(() => undefined);
      if (refusal) return refused(url, refusal);
    }
    let response: Response;
    try {
      response = await doFetch(physicalUrl(url, options.baseUrl), {
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
        headers: { accept: 'text/plain' },
      });
    } catch (error) {
      const refusal = outboundRefusal(error);
      if (refusal) return refused(url, refusal);
      return { kind: 'unreachable', reason: `${url.href}: ${networkReason(error, options.timeoutMs)}`, network: true };
    }
    if (REDIRECTS.has(response.status)) {
      await response.body?.cancel();
      const location = response.headers.get('location');
      let next: URL;
      try {
        next = new URL(location ?? '', url);
      } catch {
        return { kind: 'missing', reason: `${url.href} redirects to an invalid location ${JSON.stringify(location)}` };
      }
      if (!location || (next.protocol !== 'https:' && next.protocol !== 'http:')) {
        return { kind: 'missing', reason: `${url.href} redirects without a usable http(s) location` };
      }
      const inRoot = rootDomainOf(next.hostname) === rootDomain;
      if (leftRoot) return { kind: 'missing', reason: `redirect refused: ${url.href} (already outside ${rootDomain}) redirects again, to ${next.href}; ads.txt allows one hop outside the root domain` };
      if (!inRoot) leftRoot = true;
      url = next;
      continue;
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      if (response.status >= 500) return { kind: 'unreachable', reason: `${url.href}: HTTP ${response.status}` };
      return { kind: 'missing', reason: `no file at ${url.href} (HTTP ${response.status})` };
    }
    const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase(); // split yields one item at least
    if (type !== 'text/plain') {
      await response.body?.cancel();
      return { kind: 'missing', reason: `${url.href} is ${type || 'of no type'}, not text/plain` };
    }
    try {
      return { kind: 'file', text: await readBounded(response, options.maxBytes), url: url.href };
    } catch (error) {
      if (error instanceof TooLarge) return { kind: 'missing', reason: `${url.href} is larger than ${options.maxBytes} bytes` };
      return { kind: 'unreachable', reason: `${url.href}: ${networkReason(error, options.timeoutMs)}` };
    }
  }
  return { kind: 'missing', reason: `more than ${MAX_REDIRECTS} redirects from ${start.href}` };
}

/** `https://<domain>/<file>`, then `http://` if HTTPS gave no HTTP answer at all. */
export async function fetchAdsFile(domain: string, file: 'ads.txt' | 'app-ads.txt', options: FetchOptions): Promise<FetchOutcome> {
  const root = rootDomainOf(domain) ?? domain;
  const secure = await fetchFrom(new URL(`https://${domain}/${file}`), root, options);
  if (secure.kind !== 'unreachable' || secure.network !== true) return secure;
  const plain = await fetchFrom(new URL(`http://${domain}/${file}`), root, options);
  if (plain.kind !== 'unreachable') return plain;
  // The same failure both ways (an unknown host, above all) is said once.
  const why = (reason: string) => reason.slice(reason.indexOf(': ') + 2);
  const network = plain.network === true ? { network: true } : {};
  if (why(secure.reason) === why(plain.reason)) return { kind: 'unreachable', reason: `https and http://${domain}/${file}: ${why(secure.reason)}`, ...network };
  return { kind: 'unreachable', reason: `${secure.reason}; ${plain.reason}`, ...network };
}
