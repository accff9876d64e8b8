/**
 * HTTP validators, one implementation for the whole service: strong entity tags (RFC 9110
 * section 8.8.3) and the If-None-Match test of a conditional GET (RFC 9110 section 13.1.2).
 * The data handler and the edge (static files, response cache) both use these.
 */
import { hash } from 'node:crypto';

/**
 * A strong entity tag of a body: equal bytes, equal tag (27 base64url characters of its SHA-256).
 * The one-shot `hash` (Node 21.7, 22 and 24 have it) gives the digest `createHash` gives without
 * its Hash object and stream machinery: a third of the cost on a data answer (bench/NOTES.md).
 */
export function strongEtag(body: string | Uint8Array): string {
  return `"${hash('sha256', body, 'base64url').slice(0, 27)}"`;
}

/**
 * The tag of one content coding of a body: `"abc"` becomes `"abc-br"` / `"abc-gzip"`. Each
 * coding is a different representation, so it needs its own strong tag (RFC 9110 section 8.8.3).
 */
export function variantEtag(etag: string, encoding: 'br' | 'gzip' | undefined): string {
  return encoding ? `${etag.slice(0, -1)}-${encoding}"` : etag;
}

const OPAQUE = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag).replace(/-(br|gzip)"$/, '"');

/**
 * Whether an If-None-Match header matches `etag`, so the answer is 304 (RFC 9110 section
 * 13.1.2): `*` matches any current representation, otherwise any listed tag matches by *weak*
 * comparison, which ignores `W/` and, here, the coding suffix of `variantEtag` (the codings of
 * one body are the same content). Tags are found by their quotes, since a tag may hold a comma.
 */
export function ifNoneMatchMatches(header: string | null | undefined, etag: string): boolean {
  if (!header) return false;
  const value = header.trim();
  if (value === '*') return true;
  const wanted = OPAQUE(etag);
  return (value.match(/(?:W\/)?"[^"]*"/g) ?? []).some((tag) => OPAQUE(tag) === wanted);
}
