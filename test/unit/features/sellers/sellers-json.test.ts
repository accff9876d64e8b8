import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SELLERS_JSON_CONTENT_TYPE, renderSellersJson } from '../../../../src/features/sellers/sellers-json.ts';

const sampleText = readFileSync(new URL('../../../../content/sellers.json', import.meta.url), 'utf8');

describe('renderSellersJson', () => {
  it('serves the editors’ document unchanged, as indented JSON with a final newline', () => {
    const body = renderSellersJson(JSON.parse(sampleText));
    expect(JSON.parse(body)).toEqual(JSON.parse(sampleText));
    expect(body.endsWith('}\n')).toBe(true);
    expect(body.split('\n')[1]).toBe('  "contact_email": "sellers@meridian-exchange.example",');
  });

  it('publishes the top-level fields in a fixed order whatever the file’s order', () => {
    const doc = JSON.parse(sampleText) as Record<string, unknown>;
    const reordered = { sellers: doc['sellers'], version: doc['version'], identifiers: doc['identifiers'], contact_address: doc['contact_address'], contact_email: doc['contact_email'] };
    expect(Object.keys(JSON.parse(renderSellersJson(reordered)) as object)).toEqual(['contact_email', 'contact_address', 'version', 'identifiers', 'sellers']);
  });

  it('refuses to render a document that breaks the rules', () => {
    expect(() => renderSellersJson({ version: '2.0', sellers: [] })).toThrow();
  });

  it('is declared as UTF-8 JSON', () => {
    expect(SELLERS_JSON_CONTENT_TYPE).toBe('application/json; charset=utf-8');
  });
});
