/**
 * Request media types the JSON endpoints accept, and the checks on a Content-Type header that
 * decide it. One list, so the handlers and the published document say the same thing.
 */

/**
 * Accepted request media types: `application/json` and any structured-syntax suffix type
 * `application/*+json` (RFC 6839 section 3.1), with no charset or `charset=utf-8`.
 */
export const JSON_REQUEST_MEDIA_TYPES = ['application/json', 'application/*+json'] as const;

/** The essence (type/subtype, lower-cased) of a Content-Type, parameters dropped (RFC 9110 section 8.3.1). */
function essenceOf(contentType: string): string {
  return contentType.split(';', 1)[0]!.trim().toLowerCase();
}

/**
 * Is this Content-Type JSON? `application/json` or any `application/*+json` structured-syntax
 * suffix type (RFC 6839 section 3.1), parameters such as charset ignored.
 */
export function isJsonMediaType(contentType: string | null): boolean {
  if (!contentType) return false;
  const essence = essenceOf(contentType);
  return essence === 'application/json' || /^application\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence);
}

/**
 * JSON is UTF-8 on the wire (RFC 8259 section 8.1), so a declared charset other than UTF-8 is
 * an encoding we would misread: callers refuse it rather than guess. Absent means UTF-8.
 */
export function declaresForeignCharset(contentType: string | null): boolean {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '');
  return match !== null && !/^utf-?8$/i.test(match[1]!);
}

