/**
 * How `POST /api/contact` reads a request besides its JSON: which body it carries, which answer
 * the client wants, whether a form post comes from our own pages, and the form's fields.
 *
 * - A JSON body is today's contract, answered in JSON whatever Accept says.
 * - A form body (`application/x-www-form-urlencoded`, what an HTML form sends without
 *   JavaScript) is answered with HTML (303 to the thank-you page, or the form again) when the
 *   client prefers text/html to JSON, as browsers navigating do; otherwise (curl, `Accept:
 *   application/json`) in JSON, as Formspree does.
 * - Anything else keeps today's 415.
 *
 * A JSON text sent under another media type (curl's `-d` sends it as a form; a client may send
 * none, or text/plain) is named as such (`checkNotMisdeclaredJson`), rather than read as a form
 * with one odd field and answered "Name is required" three times.
 */
import type { HeaderReader, PlainRequest } from '../../lib/endpoint.ts';
import { HttpError } from '../../lib/http-error.ts';
import { declaresForeignCharset, isJsonMediaType } from '../../lib/media-type.ts';

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

export type BodyKind = 'json' | 'form' | 'other';

export function bodyKindOf(contentType: string | null): BodyKind {
  if (isJsonMediaType(contentType)) return 'json';
  const essence = (contentType ?? '').split(';', 1)[0]!.trim().toLowerCase();
  return essence === FORM_MEDIA_TYPE ? 'form' : 'other';
}

/** The quality (RFC 9110 section 12.5.1) the Accept header gives `type/subtype`, 0 to 1. */
export function acceptQuality(accept: string | null, mediaType: string): number {
  // No Accept means any type is acceptable (RFC 9110 section 12.5.1).
  if (accept === null || accept.trim() === '') return 1;
  const [type] = mediaType.split('/');
  let best = -1;
  let quality = 0;
  for (const range of accept.split(',')) {
    const [name = '', ...params] = range.split(';').map((part) => part.trim().toLowerCase());
    // The most specific matching range decides (section 12.5.1), not the highest q.
    const specificity = name === mediaType ? 2 : name === `${type}/*` ? 1 : name === '*/*' ? 0 : -1;
    if (specificity <= best) continue;
    const q = params.find((p) => p.startsWith('q='));
    const value = q === undefined ? 1 : Number(q.slice(2));
    best = specificity;
    quality = Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
  }
  return quality;
}

/**
 * HTML answers: a form body from a client that ranks text/html above JSON (a browser sends
 * `text/html,...,*\/*;q=0.8`). A tie, as with `*\/*` or no Accept at all, goes to JSON.
 */
export function wantsHtml(kind: BodyKind, accept: string | null): boolean {
  if (kind !== 'form') return false;
  const json = Math.max(acceptQuality(accept, 'application/json'), acceptQuality(accept, 'application/problem+json'));
  return acceptQuality(accept, 'text/html') > json;
}

export interface SameOriginPolicy {
  /**
   * The site's own origins: SITE_URL's, and for a loopback SITE_URL its localhost/127.0.0.1
   * twin. Never ALLOWED_ORIGINS: those are chat partners, trusted to call the assistant from
   * their pages, not to make a visitor's browser submit our contact form.
   */
  siteOrigins: readonly string[];
}

/**
 * Refuse a form post sent from another site (cross-site request forgery): unlike a JSON body, a
 * form body needs no CORS preflight, so any page could make a visitor's browser send one. The
 * rule is Go's net/http CrossOriginProtection (Filippo Valsorda, "CSRF", 2025): trust
 * `Sec-Fetch-Site` (Fetch Metadata) where the browser sends it; otherwise compare `Origin`
 * with the request's host; a request with neither comes from no browser and is no forgery.
 * An Origin that is one of the site's own origins passes either way (a page on the loopback
 * twin of the site's address is the same site to its operator).
 */
export function checkSameOrigin(request: Pick<PlainRequest, 'headers' | 'url'>, policy: SameOriginPolicy): void {
  const origin = request.headers.get('origin');
  if (origin !== null && policy.siteOrigins.includes(origin)) return;
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) {
    if (site === 'same-origin' || site === 'none') return;
    throw crossSite(origin);
  }
  if (origin === null) return;
  let host: string | undefined;
  try {
    host = new URL(origin).host;
  } catch {
    host = undefined;
  }
  if (host !== request.url.host) throw crossSite(origin);
}

/** SITE_URL's origin, and for a loopback one both spellings (localhost and 127.0.0.1). */
export function siteOrigins(siteUrl: string): string[] {
  const url = new URL(siteUrl);
  const origins = new Set([url.origin]);
  if (url.hostname === 'localhost' || url.hostname === '127.0.0.1') {
    for (const host of ['localhost', '127.0.0.1']) origins.add(`${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`);
  }
  return [...origins];
}

function crossSite(origin: string | null): HttpError {
  return new HttpError('origin_not_allowed', {
    detail: `A form posted from ${origin && origin !== 'null' ? origin : 'another site'} cannot send a contact request.`,
    resolution: 'Send the form from this site’s contact page.',
  });
}

/** 415 unless a form body is UTF-8 (the page's encoding) and uncompressed. */
export function checkFormRepresentation(headers: HeaderReader): void {
  const contentType = headers.get('content-type');
  const coding = headers.get('content-encoding');
  if (declaresForeignCharset(contentType) || (coding !== null && coding.trim().toLowerCase() !== 'identity')) {
    throw new HttpError('unsupported_media_type', {
      detail: declaresForeignCharset(contentType) ? `Content type "${contentType}" is not accepted.` : `Content-Encoding "${coding}" is not accepted.`,
      resolution: `Send the form as UTF-8 ${FORM_MEDIA_TYPE}, uncompressed, or as JSON with Content-Type: application/json.`,
      headers: { 'accept-post': `application/json, ${FORM_MEDIA_TYPE}` },
    });
  }
}

/**
 * The fields of a form body (WHATWG URL standard, application/x-www-form-urlencoded parsing).
 * A name given more than once keeps its first value; bytes that are not UTF-8 become U+FFFD,
 * as the standard says, and the text rules then judge them like any other character.
 */
export function formFields(bytes: Uint8Array): Record<string, string> {
  // No prototype: a field named __proto__ is a field like any other.
  const fields: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const [name, value] of new URLSearchParams(new TextDecoder().decode(bytes))) {
    if (!Object.hasOwn(fields, name)) fields[name] = value;
  }
  return fields;
}

/** True when the body, whatever its declared type, is a JSON object or array. */
function looksLikeJson(bytes: Uint8Array): boolean {
  const text = new TextDecoder().decode(bytes).trim();
  if (!text.startsWith('{') && !text.startsWith('[')) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * 415 naming the media type received when a body that is not declared JSON is JSON all the
 * same: for a form type, it says the body was read as a form. Nothing to say for a JSON type.
 */
export function checkNotMisdeclaredJson(kind: BodyKind, contentType: string | null, bytes: Uint8Array): void {
  if (kind === 'json' || !looksLikeJson(bytes)) return;
  const received = contentType === null || contentType.trim() === '' ? 'no Content-Type' : `Content-Type "${contentType}"`;
  throw new HttpError('unsupported_media_type', {
    detail:
      kind === 'form'
        ? `The body is JSON but came with ${received}, so it was read as a form (${FORM_MEDIA_TYPE}) and none of its fields were found.`
        : `The body is JSON but came with ${received}, so it was not read as JSON.`,
    resolution: 'Send the JSON body with the header Content-Type: application/json (curl: -H "Content-Type: application/json").',
    headers: { 'accept-post': `application/json, ${FORM_MEDIA_TYPE}` },
  });
}
