/**
 * listNews (docs/interface.md section 3): every published article, newest first, metadata only,
 * as of the build's instant (scheduled editions have their own copy, src/features/news/schedule.ts).
 * Prerendered: `astro build` writes the bytes once; the edge serves them with ETag/304,
 * Cache-Control and the rate-limit headers.
 */
import type { APIRoute } from 'astro';
import { getCollection } from 'astro:content';
import { newsListResponse } from '../../features/news/news-list.ts';
import { buildInstant, publishedAt } from '../../features/news/schedule.ts';

export const prerender = true;

export const GET: APIRoute = async ({ site, url }) => newsListResponse(publishedAt(await getCollection('news'), buildInstant()), site ?? url.origin);
