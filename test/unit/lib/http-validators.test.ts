import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ifNoneMatchMatches, strongEtag, variantEtag } from '../../../src/lib/http-validators.ts';

// The data handler's validators (src/lib/http-validators.ts, shared with the edge).
describe('HTTP validators', () => {
  it('gives equal bodies equal strong tags and different bodies different ones, from text or bytes', () => {
    const tag = strongEtag('{"status":"Success","data":[]}');
    expect(tag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(strongEtag('{"status":"Success","data":[]}')).toBe(tag);
    expect(strongEtag(Buffer.from('{"status":"Success","data":[]}'))).toBe(tag);
    expect(strongEtag('{"status":"Success","data":[{}]}')).not.toBe(tag);
  });

  it('is the SHA-256 of the UTF-8 bytes, cut to 27 base64url characters: tags already sent stay valid', () => {
    // Pinned values: a client or CDN holding a tag from an earlier build must still get its 304.
    expect(strongEtag('{"status":"Success","data":[]}')).toBe('"FuthSTQYo-DEHnV7m2-6IQFwtWF"');
    for (const body of ['', 'h\u00e9llo \u{1F600}', 'x'.repeat(100_000)]) {
      const expected = `"${createHash('sha256').update(Buffer.from(body, 'utf8')).digest('base64url').slice(0, 27)}"`;
      expect(strongEtag(body)).toBe(expected);
      expect(strongEtag(new Uint8Array(Buffer.from(body, 'utf8')))).toBe(expected);
    }
  });

  it('matches If-None-Match by weak comparison, in lists, and for *', () => {
    const tag = '"abc"';
    expect(ifNoneMatchMatches(null, tag)).toBe(false);
    expect(ifNoneMatchMatches(undefined, tag)).toBe(false);
    expect(ifNoneMatchMatches('"abc"', tag)).toBe(true);
    expect(ifNoneMatchMatches('W/"abc"', tag)).toBe(true);
    expect(ifNoneMatchMatches('"x", W/"y" ,"abc"', tag)).toBe(true);
    expect(ifNoneMatchMatches('*', tag)).toBe(true);
    expect(ifNoneMatchMatches('"abcd"', tag)).toBe(false);
    expect(ifNoneMatchMatches('abc', tag)).toBe(false);
    expect(ifNoneMatchMatches('', tag)).toBe(false);
  });

  it('reads a tag that contains a comma as one tag (RFC 9110 etagc allows it)', () => {
    expect(ifNoneMatchMatches('"a,b"', '"a,b"')).toBe(true);
    expect(ifNoneMatchMatches('"x", "a,b"', '"a,b"')).toBe(true);
    expect(ifNoneMatchMatches('"a,b"', '"a"')).toBe(false);
  });

  it('gives each content coding its own tag and matches any coding of the same body on revalidation', () => {
    expect(variantEtag('"abc"', 'br')).toBe('"abc-br"');
    expect(variantEtag('"abc"', undefined)).toBe('"abc"');
    expect(ifNoneMatchMatches('"abc-gzip"', '"abc"')).toBe(true);
    expect(ifNoneMatchMatches('W/"abc-br"', '"abc"')).toBe(true);
    expect(ifNoneMatchMatches('"abd-br"', '"abc"')).toBe(false);
  });
});
