/**
 * `GET /openapi.json`: the OpenAPI 3.1 description of both interfaces, generated at build time
 * from the zod schemas (src/api-docs/document.ts). Prerendered: the edge serves the bytes from
 * memory with an ETag, 304 and compression, like every prebuilt file.
 */
import type { APIRoute } from 'astro';
import { createOpenApiDocument } from '../api-docs/document.ts';
import { SITE_NAME } from '../components/site.ts';

export const prerender = true;

export const GET: APIRoute = ({ site, url }) => {
  const document = createOpenApiDocument({ siteName: SITE_NAME, siteUrl: site ?? url.origin });
  // Indented: people read this file too, and compression takes the whitespace back.
  return new Response(`${JSON.stringify(document, null, 2)}\n`, {
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
};
