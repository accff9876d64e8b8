/**
 * listNews (docs/interface.md section 3): every published article, newest first, metadata only.
 * Prerendered: `astro build` writes the bytes once; the edge serves them with ETag/304,
 * Cache-Control and the rate-limit headers.
 */
import type { APIRoute } from 'astro';
import { getCollection } from 'astro:content';
import { toNewsList } from '../../features/news/news-list.ts';

export const prerender = true;

export const GET: APIRoute = async ({ site, url }) => {
  const articles = toNewsList(await getCollection('news'), site ?? url.origin);
  return new Response(JSON.stringify(articles), {
    headers: { 'content-type': 'application/json; charset=utf-8' },
  });
};
