/** /api/news of a scheduled edition (src/features/news/schedule.ts), served from its instant on. */
import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { newsListResponse } from '../../../../features/news/news-list.ts';
import { buildInstant, editionsAfter, publishedAt } from '../../../../features/news/schedule.ts';

export const prerender = true;

export const getStaticPaths = (async () => editionsAfter(await getCollection('news'), buildInstant()).map(({ at }) => ({ params: { at: String(at) } }))) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ site, url, params }) => newsListResponse(publishedAt(await getCollection('news'), Number(params['at'])), site ?? url.origin);
