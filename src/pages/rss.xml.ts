/** The news feed as of the build's instant (src/features/news/feed.ts); scheduled editions have their own copy. */
import type { APIRoute } from 'astro';
import { getCollection } from 'astro:content';
import { SITE_NAME } from '../components/site.ts';
import { newsFeed } from '../features/news/feed.ts';
import { buildInstant, publishedAt } from '../features/news/schedule.ts';

export const prerender = true;

export const GET: APIRoute = async ({ site, url }) => newsFeed(publishedAt(await getCollection('news'), buildInstant()), site ?? url.origin, SITE_NAME);
