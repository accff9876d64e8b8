/**
 * The news feed (RSS 2.0 via @astrojs/rss): the newest FEED_ITEMS published articles, in the
 * order of /api/news (which keeps every one).
 */
import rss from '@astrojs/rss';
import type { APIRoute } from 'astro';
import { getCollection } from 'astro:content';
import { SITE_NAME } from '../components/site.ts';
import { publishedEntries } from '../features/news/news-list.ts';
import { FEED_ITEMS } from '../features/news/pagination.ts';

export const prerender = true;

export const GET: APIRoute = async ({ site, url }) => {
  const entries = publishedEntries(await getCollection('news')).slice(0, FEED_ITEMS);
  return rss({
    title: `${SITE_NAME} news`,
    description: `Product changes, transparency reports and market data from ${SITE_NAME}.`,
    site: site ?? url.origin,
    items: entries.map((entry) => ({
      title: entry.data.heading,
      ...(entry.data.subheading ? { description: entry.data.subheading } : {}),
      link: `/news/${entry.id}/`,
      pubDate: new Date(entry.data.createdAt),
    })),
    customData: '<language>en</language>',
  });
};
