/**
 * Cross-check against an independent reading of sellers.json 1.0: the JSON Schema published by
 * Philo Inc. (MIT), copied unchanged with its licence into test/fixtures/sellers-json-schema/. Both the editors' file and
 * the bytes we serve must pass it. It is weaker than our rules in known ways (see its README);
 * the last test pins one such gap so the reason our own rules exist stays visible.
 */
import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { renderSellersJson } from '../../../../src/features/sellers/sellers-json.ts';
import { parseSellersDocument } from '../../../../src/features/sellers/validate.ts';

const schema = JSON.parse(readFileSync(new URL('../../../fixtures/sellers-json-schema/sellers-1.0.schema.json', import.meta.url), 'utf8')) as Record<string, unknown>;
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats.default(ajv);
const validate = ajv.compile(schema);

const sampleText = readFileSync(new URL('../../../../content/sellers.json', import.meta.url), 'utf8');
const sample = JSON.parse(sampleText) as unknown;

describe('the third-party sellers.json 1.0 JSON Schema', () => {
  it('accepts content/sellers.json', () => {
    expect(validate(sample), ajv.errorsText(validate.errors)).toBe(true);
  });

  it('accepts the document served at /sellers.json', () => {
    const served = JSON.parse(renderSellersJson(sample)) as unknown;
    expect(validate(served), ajv.errorsText(validate.errors)).toBe(true);
  });

  it('misses a duplicate seller_id and a URL as domain, which our rules refuse', () => {
    const doc = JSON.parse(sampleText) as { sellers: Record<string, unknown>[] };
    doc.sellers.push({ ...doc.sellers[0], domain: 'https://www.harbourdaily.example/' });
    expect(validate(doc)).toBe(true);
    expect(parseSellersDocument(doc).success).toBe(false);
  });

  it('misses a subdomain as domain, which our rules refuse (root domains, Public Suffix List)', () => {
    const doc = JSON.parse(sampleText) as { sellers: Record<string, unknown>[] };
    doc.sellers[0] = { ...doc.sellers[0], domain: 'ads.harbourdaily.example' };
    expect(validate(doc)).toBe(true);
    expect(parseSellersDocument(doc).success).toBe(false);
  });
});
