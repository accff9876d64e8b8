/**
 * The bytes of `GET /sellers.json`, prepared at build time. The document is validated again
 * here, so the endpoint can only publish what passes sellers.json 1.0 and our rules.
 */
import { SellersDocument } from './schema.ts';

/** Served as `application/json; charset=utf-8` (RFC 8259 section 8.1: JSON text is UTF-8). */
export const SELLERS_JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/**
 * Indented JSON with a final newline: people read this file (buyers, auditors, crawlers' users);
 * the indentation costs little once compressed.
 */
export function renderSellersJson(document: unknown): string {
  return `${JSON.stringify(SellersDocument.parse(document), null, 2)}\n`;
}
