/**
 * Is this Content-Type JSON? `application/json` or any `application/*+json` structured-syntax
 * suffix type (RFC 6839 section 3.1), parameters such as charset ignored.
 */
export function isJsonMediaType(contentType: string | null): boolean {
  if (!contentType) return false;
  const essence = contentType.split(';', 1)[0]!.trim().toLowerCase();
  return essence === 'application/json' || /^application\/[a-z0-9!#$&^_.+-]+\+json$/.test(essence);
}
