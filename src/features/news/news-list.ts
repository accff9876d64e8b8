/**
 * From validated collection entries to the published NewsArticle list: drafts out, newest first,
 * metadata only (docs/interface.md section 2: no article body).
 */
import { NewsArticle, type NewsFrontmatter } from './schema.ts';

/** What `toNewsList` needs of a collection entry (Astro's `CollectionEntry<'news'>` fits). */
export interface NewsEntry {
  /** The file name without `.md`. */
  id: string;
  data: NewsFrontmatter;
}

/** An RFC 3339 UTC timestamp without a zero fraction: "2026-01-05T08:30:00Z". */
export function toUtcDateTime(value: string): string {
  return new Date(value).toISOString().replace('.000Z', 'Z');
}

/** Resolve a site path ("/images/x.svg") against the public site URL; absolute URLs pass through. */
export function absoluteUrl(value: string, site: URL | string): string {
  return new URL(value, site).href;
}

/**
 * Entries newest first. Equal times are ordered by id so the output (and with it the ETag of the
 * prebuilt /api/news) does not depend on the order the files were read in.
 */
export function newestFirst<E extends NewsEntry>(entries: readonly E[]): E[] {
  return entries
    .map((entry) => ({ entry, time: Date.parse(entry.data.createdAt) }))
    .sort((a, b) => b.time - a.time || (a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0))
    .map(({ entry }) => entry);
}

/** Published entries (drafts left out), newest first. */
export function publishedEntries<E extends NewsEntry>(entries: readonly E[]): E[] {
  return newestFirst(entries.filter((entry) => !entry.data.draft));
}

/** One entry as the API resource. URLs are made absolute against `site`. */
export function toNewsArticle(entry: NewsEntry, site: URL | string): NewsArticle {
  const { data } = entry;
  return NewsArticle.parse({
    id: entry.id,
    heading: data.heading,
    subheading: data.subheading ?? null,
    imageUrl: data.imageUrl ? absoluteUrl(data.imageUrl, site) : null,
    link: data.link ? absoluteUrl(data.link, site) : null,
    createdAt: toUtcDateTime(data.createdAt),
  });
}

/**
 * The body of `GET /api/news`: every published article, newest first, metadata only. Each item
 * is checked against `NewsArticle`, so a build cannot publish something the contract forbids.
 */
export function toNewsList(entries: readonly NewsEntry[], site: URL | string): NewsArticle[] {
  return publishedEntries(entries).map((entry) => toNewsArticle(entry, site));
}

/** The response of `GET /api/news` for `published` (newest first, drafts and scheduled articles left out). */
export function newsListResponse(published: readonly NewsEntry[], site: URL | string): Response {
  const articles = published.map((entry) => toNewsArticle(entry, site));
  return new Response(JSON.stringify(articles), { headers: { 'content-type': 'application/json; charset=utf-8' } });
}
