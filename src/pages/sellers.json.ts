/**
 * getSellersJson (docs/interface.md section 3): the sellers.json 1.0 document, built from
 * content/sellers.json (validated by the `sellers` collection, and again when rendered).
 * Prerendered: the edge serves the bytes with ETag/304 and a Cache-Control of hours.
 */
import type { APIRoute } from 'astro';
import { getEntry } from 'astro:content';
import { SELLERS_JSON_CONTENT_TYPE, renderSellersJson } from '../features/sellers/sellers-json.ts';
import { SELLERS_FILE } from '../features/sellers/validate.ts';

export const prerender = true;

export const GET: APIRoute = async () => {
  const entry = await getEntry('sellers', SELLERS_FILE);
  if (!entry) throw new Error(`${SELLERS_FILE} was not loaded: see the content sync messages above`);
  return new Response(renderSellersJson(entry.data), {
    headers: { 'content-type': SELLERS_JSON_CONTENT_TYPE },
  });
};
