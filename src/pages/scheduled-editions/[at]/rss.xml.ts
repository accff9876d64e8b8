/** The news feed of a scheduled edition (src/features/news/schedule.ts), served at /rss.xml from its instant on. */
import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection } from 'astro:content';
import { SITE_NAME } from '../../../components/site.ts';
import { newsFeed } from '../../../features/news/feed.ts';
import { buildInstant, editionsAfter, publishedAt } from '../../../features/news/schedule.ts';

export const prerender = true;

export const getStaticPaths = (async () => editionsAfter(await getCollection('news'), buildInstant()).map(({ at }) => ({ params: { at: String(at) } }))) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ site, url, params }) => newsFeed(publishedAt(await getCollection('news'), Number(params['at'])), site ?? url.origin, SITE_NAME);
