/**
 * The news feed (RSS 2.0 via @astrojs/rss): the newest FEED_ITEMS of the given published
 * entries, in the order of /api/news (which keeps every one). /rss.xml and each scheduled
 * edition's copy of it (schedule.ts) are rendered here.
 */
import rss from '@astrojs/rss';
import { FEED_ITEMS } from './pagination.ts';
import type { NewsEntry } from './news-list.ts';

/** `published`: newest first, drafts and scheduled articles already left out. */
export function newsFeed(published: readonly NewsEntry[], site: URL | string, siteName: string): Promise<Response> {
  return rss({
    title: `${siteName} news`,
    description: `Product changes, transparency reports and market data from ${siteName}.`,
    site,
    items: published.slice(0, FEED_ITEMS).map((entry) => ({
      title: entry.data.heading,
      ...(entry.data.subheading ? { description: entry.data.subheading } : {}),
      link: `/news/${entry.id}/`,
      pubDate: new Date(entry.data.createdAt),
    })),
    customData: '<language>en</language>',
  });
}
