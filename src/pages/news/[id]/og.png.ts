/**
 * `/news/<id>/og.png`: the link-preview picture (og:image) of each of the newest published
 * articles (OG_IMAGE_ARTICLES in article-meta.ts; older ones use /news/og.png), rendered once at
 * build time (prerendered, so `astro build` writes the PNG files and the server never runs this).
 * Drawing: src/features/news/og-image.ts.
 */
import type { APIRoute, GetStaticPaths } from 'astro';
import { getCollection, type CollectionEntry } from 'astro:content';
import { SITE_NAME } from '../../../components/site.ts';
import { OG_IMAGE_TYPE, ownOgImageIds } from '../../../features/news/article-meta.ts';
import { newestFirst, publishedEntries } from '../../../features/news/news-list.ts';
import { renderOgImage } from '../../../features/news/og-image.ts';
import { formatDate } from '../../../lib/calendar.ts';

export const prerender = true;

export const getStaticPaths = (async () => {
  const all = await getCollection('news');
  // As the article pages: drafts get a picture in `astro dev` only; scheduled articles get theirs,
  // which the build moves into their edition (src/features/news/schedule.ts).
  const entries = import.meta.env.DEV ? newestFirst(all) : publishedEntries(all);
  const own = ownOgImageIds(entries);
  return entries.filter((entry) => own.has(entry.id)).map((entry) => ({ params: { id: entry.id }, props: { entry } }));
}) satisfies GetStaticPaths;

export const GET: APIRoute<{ entry: CollectionEntry<'news'> }> = async ({ props }) => {
  const { data } = props.entry;
  const png = await renderOgImage({ heading: data.heading, subheading: data.subheading, siteName: SITE_NAME, footer: formatDate(data.createdAt) });
  return new Response(png, { headers: { 'Content-Type': OG_IMAGE_TYPE } });
};
