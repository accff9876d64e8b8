import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SELLER_TYPES, SellersDocument, bareDomainOf, domainProblem } from '../../../../src/features/sellers/schema.ts';
import { SellersFileSchema, formatSellersIssues, parseSellersDocument } from '../../../../src/features/sellers/validate.ts';

const sample = JSON.parse(readFileSync(new URL('../../../../content/sellers.json', import.meta.url), 'utf8')) as {
  sellers: Record<string, unknown>[];
} & Record<string, unknown>;

const base = { version: '1.0', sellers: [{ seller_id: 'pub-1', seller_type: 'PUBLISHER', name: 'Harbour Daily Media Ltd', domain: 'harbourdaily.example' }] };

/** A document with `seller` as its second seller. */
const withSeller = (seller: Record<string, unknown>) => ({ ...base, sellers: [...base.sellers, seller] });

/** The friendly messages, as "path: message". */
function problems(input: unknown): string[] {
  const result = parseSellersDocument(input);
  if (result.success) return [];
  return result.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

describe('the sample content/sellers.json', () => {
  it('follows sellers.json 1.0 and our rules', () => {
    expect(problems(sample)).toEqual([]);
  });

  it('has at least eight sellers of all three types, a confidential one and a passthrough one', () => {
    expect(sample.sellers.length).toBeGreaterThanOrEqual(8);
    expect(new Set(sample.sellers.map((s) => s['seller_type']))).toEqual(new Set(SELLER_TYPES));
    expect(sample.sellers.some((s) => s['is_confidential'] === 1)).toBe(true);
    expect(sample.sellers.some((s) => s['is_passthrough'] === 1)).toBe(true);
  });

  it('keeps every field the editor wrote, and only those', () => {
    expect(SellersDocument.parse(sample)).toEqual(sample);
  });
});

describe('seller rules', () => {
  it('refuses a missing or empty seller_id', () => {
    expect(problems(withSeller({ seller_type: 'PUBLISHER', name: 'A', domain: 'a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.seller_id: sellers[1] (no seller_id): seller_id is required",
      ]
    `);
    expect(problems(withSeller({ seller_id: '', seller_type: 'PUBLISHER', name: 'A', domain: 'a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.seller_id: sellers[1] (no seller_id): seller_id must not be empty",
      ]
    `);
  });

  it('refuses a seller_id used twice, naming both positions', () => {
    expect(problems(withSeller({ seller_id: 'pub-1', seller_type: 'BOTH', name: 'B', domain: 'b.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.seller_id: seller "pub-1": seller_id "pub-1" is already used by sellers[0]: each seller_id must be unique in the file",
      ]
    `);
  });

  it('refuses a seller_type outside PUBLISHER, INTERMEDIARY, BOTH, or in lower case', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'RESELLER', name: 'A', domain: 'a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.seller_type: seller "x": seller_type must be PUBLISHER, INTERMEDIARY or BOTH (in capitals), got "RESELLER"",
      ]
    `);
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'publisher', name: 'A', domain: 'a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.seller_type: seller "x": seller_type must be PUBLISHER, INTERMEDIARY or BOTH (in capitals), got "publisher"",
      ]
    `);
    expect(problems(withSeller({ seller_id: 'x', name: 'A', domain: 'a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.seller_type: seller "x": seller_type is required: PUBLISHER, INTERMEDIARY or BOTH",
      ]
    `);
  });

  it('refuses is_confidential and is_passthrough other than the numbers 0 and 1', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', name: 'A', domain: 'a.example', is_confidential: '0', is_passthrough: true })))
      .toMatchInlineSnapshot(`
        [
          "sellers.1.is_confidential: seller "x": is_confidential must be the number 0 or 1, got "0"",
          "sellers.1.is_passthrough: seller "x": is_passthrough must be the number 0 or 1, got true",
        ]
      `);
  });

  it('requires a name unless the seller is confidential', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', domain: 'a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.name: seller "x": name is required unless is_confidential is 1 (sellers.json 1.0: name "can be omitted only when is_confidential is set to 1")",
      ]
    `);
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', is_confidential: 0, domain: 'a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.name: seller "x": name is required unless is_confidential is 1 (sellers.json 1.0: name "can be omitted only when is_confidential is set to 1")",
      ]
    `);
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', is_confidential: 1 }))).toEqual([]);
  });

  it('refuses a confidential seller that publishes its name or domain', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', is_confidential: 1, name: 'Secret Ltd' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.name: seller "x": a confidential seller (is_confidential: 1) must not list its name or domain in this public file: remove them, or set is_confidential to 0",
      ]
    `);
  });

  it('requires a domain for a non-confidential seller unless it is marked as having no web presence', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'INTERMEDIARY', name: 'A' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.domain: seller "x": domain is required for a seller that is not confidential (sellers.json 1.0: it "can be omitted when is_confidential is set to 1 or when the seller doesn't have a web presence"); if the seller has no website, say so with "ext": { "no_web_presence": true }",
      ]
    `);
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', name: 'A', ext: { no_web_presence: true } }))).toEqual([]);
  });

  it('refuses a domain together with the no-web-presence marker', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', name: 'A', domain: 'a.example', ext: { no_web_presence: true } })))
      .toMatchInlineSnapshot(`
        [
          "sellers.1.ext.no_web_presence: seller "x": ext.no_web_presence is true but a domain is given: remove one of them",
        ]
      `);
  });

  it('refuses a domain with a scheme, a path, a port or www., suggesting the bare domain', () => {
    const domain = (d: string) => problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', name: 'A', domain: d }));
    expect(domain('https://www.example.com/')).toMatchInlineSnapshot(`
      [
        "sellers.1.domain: seller "x": domain "https://www.example.com/" must be a bare root domain such as example.com, without the scheme "https://", e.g. "example.com"",
      ]
    `);
    expect(domain('example.com/ads')).toMatchInlineSnapshot(`
      [
        "sellers.1.domain: seller "x": domain "example.com/ads" must be a bare root domain such as example.com, without a path, e.g. "example.com"",
      ]
    `);
    expect(domain('example.com:8080')).toMatchInlineSnapshot(`
      [
        "sellers.1.domain: seller "x": domain "example.com:8080" must be a bare root domain such as example.com, without a port, e.g. "example.com"",
      ]
    `);
    expect(domain('www.example.com')).toMatchInlineSnapshot(`
      [
        "sellers.1.domain: seller "x": domain "www.example.com" must be a bare root domain such as example.com, without "www.", e.g. "example.com"",
      ]
    `);
    expect(domain('Example.COM')).toMatchInlineSnapshot(`
      [
        "sellers.1.domain: seller "x": domain "Example.COM" must be written in lower case, e.g. "example.com"",
      ]
    `);
    expect(domain('localhost')).toMatchInlineSnapshot(`
      [
        "sellers.1.domain: seller "x": domain "localhost" is not a domain name: must be a bare root domain such as example.com (letters, digits and hyphens, with a dot before the top-level domain)",
      ]
    `);
  });

  it('names a seller without a usable seller_id by its position', () => {
    expect(problems(withSeller({ seller_id: 7, seller_type: 'PUBLISHER', name: 'A', domain: 'a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.seller_id: sellers[1] (no seller_id): seller_id must be text, got 7",
      ]
    `);
  });

  it('refuses fields sellers.json 1.0 does not define, pointing to ext', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', name: 'A', domain: 'a.example', website: 'https://a.example' })))
      .toMatchInlineSnapshot(`
        [
          "sellers.1.website: seller "x": unknown field "website" in a seller: sellers.json 1.0 defines seller_id, is_confidential, seller_type, is_passthrough, name, domain, comment, ext (put anything else in "ext")",
        ]
      `);
  });

  it('reports every problem of a seller in one pass', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'SELLER', domain: 'http://a.example' }))).toMatchInlineSnapshot(`
      [
        "sellers.1.seller_type: seller "x": seller_type must be PUBLISHER, INTERMEDIARY or BOTH (in capitals), got "SELLER"",
        "sellers.1.domain: seller "x": domain "http://a.example" must be a bare root domain such as example.com, without the scheme "http://", e.g. "a.example"",
        "sellers.1.name: seller "x": name is required unless is_confidential is 1 (sellers.json 1.0: name "can be omitted only when is_confidential is set to 1")",
      ]
    `);
  });
});

describe('document rules', () => {
  it('requires version "1.0"', () => {
    expect(problems({ ...base, version: 1 })).toMatchInlineSnapshot(`
      [
        "version: version must be the string "1.0" (the sellers.json version this file follows), got 1",
      ]
    `);
    expect(problems({ sellers: base.sellers })).toMatchInlineSnapshot(`
      [
        "version: version must be the string "1.0" (the sellers.json version this file follows), got nothing",
      ]
    `);
  });

  it('requires a non-empty sellers list', () => {
    expect(problems({ version: '1.0' })).toMatchInlineSnapshot(`
      [
        "sellers: sellers is required: the list of seller accounts",
      ]
    `);
    expect(problems({ version: '1.0', sellers: [] })).toMatchInlineSnapshot(`
      [
        "sellers: sellers must list at least one seller",
      ]
    `);
  });

  it('checks contact_email, identifiers and unknown top-level fields', () => {
    expect(problems({ ...base, contact_email: 'sellers at example', identifiers: [{ name: 'TAG-ID' }], owner: 'me' })).toMatchInlineSnapshot(`
      [
        "contact_email: contact_email must be an email address, got "sellers at example"",
        "identifiers.0.value: identifier value must be text, got nothing",
        "owner: unknown field "owner" in the document: sellers.json 1.0 defines contact_email, contact_address, version, identifiers, sellers, ext (put anything else in "ext")",
      ]
    `);
  });

  it('refuses a document that is not an object', () => {
    expect(problems([base])).toMatchInlineSnapshot(`
      [
        ": the sellers file must hold one JSON object, { "version": "1.0", "sellers": [...] }, got a list",
      ]
    `);
  });
});

describe('formatSellersIssues', () => {
  it('lists each problem with the file, the path and the seller', () => {
    const result = parseSellersDocument(withSeller({ seller_id: 'int-9', seller_type: 'INTERMEDIARY', name: 'A', domain: 'www.a.example' }));
    expect(result.success).toBe(false);
    if (!result.success) expect(formatSellersIssues(result.issues)).toMatchInlineSnapshot(`
      "content/sellers.json does not follow sellers.json 1.0 (1 problem):
        - sellers[1].domain: seller "int-9": domain "www.a.example" must be a bare root domain such as example.com, without "www.", e.g. "a.example""
    `);
  });
});

describe('SellersFileSchema (the collection schema)', () => {
  it('passes the document through and reports the friendly messages at their paths', () => {
    expect(SellersFileSchema.parse(sample)).toEqual(sample);
    const result = SellersFileSchema.safeParse(withSeller({ seller_id: 'pub-1', seller_type: 'BOTH', name: 'B', domain: 'b.example' }));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => [i.path.join('.'), i.message])).toMatchInlineSnapshot(`
      [
        [
          "sellers.1.seller_id",
          "seller "pub-1": seller_id "pub-1" is already used by sellers[0]: each seller_id must be unique in the file",
        ],
      ]
    `);
  });
});

describe('domainProblem', () => {
  it.each(['example.com', 'harbourdaily.example', 'bbc.co.uk', 'xn--bcher-kva.example', 'a-b.example'])('accepts %s', (domain) => {
    expect(domainProblem(domain)).toBeNull();
  });

  it.each(['', ' example.com', 'ftp://example.com', 'example.com?x=1', 'example.com.', '-bad.example', 'exa mple.com', '192.168.0.1', 'example'])(
    'refuses %j',
    (domain) => {
      expect(domainProblem(domain)).toEqual(expect.any(String));
    },
  );

  it('accepts a name under a private suffix of the Public Suffix List as a root domain', () => {
    expect(domainProblem('harbour.github.io')).toBeNull();
  });

  it('refuses a subdomain, naming its root domain (tldts, Public Suffix List)', () => {
    expect(domainProblem('ads.example.com')).toBe('domain "ads.example.com" is a subdomain: sellers.json 1.0 asks for the root domain, e.g. "example.com"');
    expect(domainProblem('news.bbc.co.uk')).toBe('domain "news.bbc.co.uk" is a subdomain: sellers.json 1.0 asks for the root domain, e.g. "bbc.co.uk"');
    expect(domainProblem('ads.harbourdaily.example')).toBe(
      'domain "ads.harbourdaily.example" is a subdomain: sellers.json 1.0 asks for the root domain, e.g. "harbourdaily.example"',
    );
  });

  it('refuses a public suffix', () => {
    expect(domainProblem('co.uk')).toBe('domain "co.uk" is a public suffix (Public Suffix List), which nobody registers: must be a bare root domain such as example.com, the company\'s own domain');
    expect(domainProblem('github.io')).toEqual(expect.stringContaining('is a public suffix'));
  });

  it('fails the content file with a message naming the seller', () => {
    expect(problems(withSeller({ seller_id: 'x', seller_type: 'PUBLISHER', name: 'A', domain: 'ads.example.com' }))).toEqual([
      'sellers.1.domain: seller "x": domain "ads.example.com" is a subdomain: sellers.json 1.0 asks for the root domain, e.g. "example.com"',
    ]);
  });

  it('suggests the bare domain inside a URL', () => {
    expect(bareDomainOf('https://user@WWW.Example.com:443/path?q#f')).toBe('example.com');
  });
});
