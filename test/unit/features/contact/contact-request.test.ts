/**
 * How POST /api/contact reads a request besides JSON (contact-request.ts): which body, which
 * answer the client wants (Accept, RFC 9110 section 12.5.1), the same-origin rule for form
 * bodies, and the form's fields.
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../../src/lib/http-error.ts';
import { acceptQuality, bodyKindOf, checkFormRepresentation, checkNotMisdeclaredJson, checkSameOrigin, formFields, siteOrigins, wantsHtml } from '../../../../src/features/contact/contact-request.ts';

const SITE = 'http://127.0.0.1:4321';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

/** What checkSameOrigin reads of a form post: its headers and its URL on the site's origin. */
function formPost(headers: Record<string, string>): { headers: Headers; url: URL } {
  return { headers: new Headers({ 'content-type': 'application/x-www-form-urlencoded', ...headers }), url: new URL(`${SITE}/api/contact`) };
}

function refusal(run: () => void): { status: number; code: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof HttpError)) throw error;
    return { status: error.status, code: error.code };
  }
}

describe('bodyKindOf', () => {
  it('tells JSON, form and other bodies apart by the media type essence', () => {
    expect(bodyKindOf('application/json; charset=utf-8')).toBe('json');
    expect(bodyKindOf('application/vnd.api+json')).toBe('json');
    expect(bodyKindOf('application/x-www-form-urlencoded')).toBe('form');
    expect(bodyKindOf('Application/X-WWW-Form-Urlencoded; charset=UTF-8')).toBe('form');
    expect(bodyKindOf('multipart/form-data; boundary=x')).toBe('other');
    expect(bodyKindOf('text/plain')).toBe('other');
    expect(bodyKindOf(null)).toBe('other');
  });
});

describe('content negotiation', () => {
  it('weighs media ranges by their most specific match', () => {
    expect(acceptQuality(BROWSER_ACCEPT, 'text/html')).toBe(1);
    expect(acceptQuality(BROWSER_ACCEPT, 'application/json')).toBe(0.8);
    expect(acceptQuality('application/json;q=0.5, */*', 'application/json')).toBe(0.5);
    expect(acceptQuality('text/*;q=0.3', 'text/html')).toBe(0.3);
    expect(acceptQuality('image/png', 'text/html')).toBe(0);
    expect(acceptQuality(null, 'text/html')).toBe(1);
  });

  it('answers HTML only to a form body from a client that ranks text/html above JSON', () => {
    expect(wantsHtml('form', BROWSER_ACCEPT)).toBe(true);
    expect(wantsHtml('form', 'text/html')).toBe(true);
    // curl's */*, no Accept at all, or JSON asked for: JSON, as a tie goes to JSON.
    expect(wantsHtml('form', '*/*')).toBe(false);
    expect(wantsHtml('form', null)).toBe(false);
    expect(wantsHtml('form', 'application/json')).toBe(false);
    expect(wantsHtml('form', 'application/problem+json, text/html;q=0.9')).toBe(false);
    expect(wantsHtml('form', 'application/json, text/html')).toBe(false);
    // A JSON body keeps today's contract whatever Accept says.
    expect(wantsHtml('json', BROWSER_ACCEPT)).toBe(false);
    expect(wantsHtml('other', BROWSER_ACCEPT)).toBe(false);
  });
});

describe('the same-origin rule for form bodies', () => {
  const policy = { siteOrigins: siteOrigins('http://127.0.0.1:4321') };

  it('takes same-origin posts, by Sec-Fetch-Site or by Origin, and posts from no browser', () => {
    expect(refusal(() => checkSameOrigin(formPost({ 'sec-fetch-site': 'same-origin', origin: SITE }), policy))).toBeUndefined();
    expect(refusal(() => checkSameOrigin(formPost({ origin: SITE }), policy))).toBeUndefined();
    expect(refusal(() => checkSameOrigin(formPost({}), policy))).toBeUndefined();
    // The loopback twin of the site's own address.
    expect(refusal(() => checkSameOrigin(formPost({ origin: 'http://localhost:4321', 'sec-fetch-site': 'cross-site' }), policy))).toBeUndefined();
  });

  it('refuses posts from another site with 403 origin_not_allowed', () => {
    const forbidden = { status: 403, code: 'origin_not_allowed' };
    expect(refusal(() => checkSameOrigin(formPost({ 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }), policy))).toEqual(forbidden);
    expect(refusal(() => checkSameOrigin(formPost({ 'sec-fetch-site': 'same-site', origin: 'http://sub.127.0.0.1:4321' }), policy))).toEqual(forbidden);
    expect(refusal(() => checkSameOrigin(formPost({ origin: 'https://evil.example' }), policy))).toEqual(forbidden);
    // The opaque origin of a sandboxed frame or a data: page.
    expect(refusal(() => checkSameOrigin(formPost({ origin: 'null' }), policy))).toEqual(forbidden);
  });
});

describe('form bodies', () => {
  it('reads the fields, keeping the first of a repeated name and a __proto__ field as data', () => {
    const fields = formFields(new TextEncoder().encode('name=Ada+Lovelace&work_email=ada%40example.com&name=Grace&__proto__=x&message=caf%C3%A9%0D%0Aok'));
    expect(Object.entries(fields)).toEqual([
      ['name', 'Ada Lovelace'],
      ['work_email', 'ada@example.com'],
      ['__proto__', 'x'],
      ['message', 'café\r\nok'],
    ]);
    expect(Object.getPrototypeOf(fields)).toBeNull();
  });

  it('turns bytes that are not UTF-8 into U+FFFD rather than failing', () => {
    expect(formFields(new Uint8Array([0x6e, 0x3d, 0xff]))['n']).toBe('\ufffd');
  });

  it('refuses another charset or a content coding with 415', () => {
    const headers = (h: Record<string, string>) => new Headers({ 'content-type': 'application/x-www-form-urlencoded', ...h });
    expect(refusal(() => checkFormRepresentation(headers({})))).toBeUndefined();
    expect(refusal(() => checkFormRepresentation(new Headers({ 'content-type': 'application/x-www-form-urlencoded; charset=UTF-8' })))).toBeUndefined();
    expect(refusal(() => checkFormRepresentation(new Headers({ 'content-type': 'application/x-www-form-urlencoded; charset=iso-8859-1' })))).toEqual({ status: 415, code: 'unsupported_media_type' });
    expect(refusal(() => checkFormRepresentation(headers({ 'content-encoding': 'gzip' })))).toEqual({ status: 415, code: 'unsupported_media_type' });
  });
});

describe('checkNotMisdeclaredJson', () => {
  const bytes = (text: string) => new TextEncoder().encode(text);
  const detailOf = (run: () => void): string | undefined => {
    try {
      run();
    } catch (error) {
      return error instanceof HttpError ? `${error.status} ${error.detail}` : String(error);
    }
    return undefined;
  };

  it('names the media type a JSON body came with, and says a form type made it read as a form', () => {
    expect(detailOf(() => checkNotMisdeclaredJson('form', 'application/x-www-form-urlencoded', bytes(' {"name":"Ada"} ')))).toBe(
      '415 The body is JSON but came with Content-Type "application/x-www-form-urlencoded", so it was read as a form (application/x-www-form-urlencoded) and none of its fields were found.',
    );
    expect(detailOf(() => checkNotMisdeclaredJson('other', null, bytes('[1]')))).toBe('415 The body is JSON but came with no Content-Type, so it was not read as JSON.');
  });

  it('lets a real form body, a declared JSON body and text that only starts like JSON through', () => {
    expect(detailOf(() => checkNotMisdeclaredJson('form', 'application/x-www-form-urlencoded', bytes('name=%7B&priority=high')))).toBeUndefined();
    expect(detailOf(() => checkNotMisdeclaredJson('json', 'application/json', bytes('{"name":"Ada"}')))).toBeUndefined();
    expect(detailOf(() => checkNotMisdeclaredJson('form', 'application/x-www-form-urlencoded', bytes('{name=Ada')))).toBeUndefined();
  });
});
