/**
 * What an article page tells link previews and search engines about itself: the Open Graph
 * article tags (ogp.me, "article" type), the X/Twitter card, and a schema.org `NewsArticle` as
 * JSON-LD (Google's "Article structured data": headline, image, datePublished, author,
 * publisher, mainEntityOfPage). Pure functions: the page (src/pages/news/[id].astro) renders them.
 */
import { extractRawFrontmatter, rawTopLevelScalar } from './frontmatter.ts';
import { toUtcDateTime, type NewsEntry } from './news-list.ts';
import { newsListPath, newsPageCount } from './pagination.ts';

/** og:image size: 1200x630 (1.91:1), what Facebook, LinkedIn and X's large card crop least. */
export const OG_IMAGE_WIDTH = 1200;
export const OG_IMAGE_HEIGHT = 630;
export const OG_IMAGE_TYPE = 'image/png';

/** The path of an article's page and of its preview picture (the prerendered og.png endpoint). */
export const articlePath = (id: string) => `/news/${id}/`;
export const ogImagePath = (id: string) => `/news/${id}/og.png`;
/** The news section's own picture, for articles beyond `OG_IMAGE_ARTICLES`. */
export const NEWS_OG_IMAGE_PATH = '/news/og.png';

/**
 * How many articles, newest first, get a picture of their own. Each costs 30 to 70 ms of build
 * (satori layout, resvg rasterising, PNG encoding, in WebAssembly on one core), so an archive of
 * a thousand articles would add about a minute to every build; past this many, older articles
 * share the news section's picture. Link previews are mostly of recent articles.
 */
export const OG_IMAGE_ARTICLES = 100;

/** The ids of the articles that get their own picture: the first `OG_IMAGE_ARTICLES` of `newestFirst` entries. */
export function ownOgImageIds(newestFirstEntries: readonly NewsEntry[]): Set<string> {
  return new Set(newestFirstEntries.slice(0, OG_IMAGE_ARTICLES).map((entry) => entry.id));
}

export interface ArticleMeta {
  /** Absolute URL of the page (og:url, mainEntityOfPage). */
  url: string;
  /** The preview picture (og:image), absolute, with its size and type. */
  image: { url: string; width: number; height: number; type: string; alt: string };
  /** RFC 3339 UTC publication time (article:published_time, datePublished). */
  publishedTime: string;
}

/** `ownImage`: whether the article is among those with a picture of their own (`ownOgImageIds`). */
export function articleMeta(entry: NewsEntry, site: URL | string, ownImage = true): ArticleMeta {
  return {
    url: new URL(articlePath(entry.id), site).href,
    image: {
      url: new URL(ownImage ? ogImagePath(entry.id) : NEWS_OG_IMAGE_PATH, site).href,
      width: OG_IMAGE_WIDTH,
      height: OG_IMAGE_HEIGHT,
      type: OG_IMAGE_TYPE,
      alt: entry.data.heading,
    },
    publishedTime: toUtcDateTime(entry.data.createdAt),
  };
}

/** The schema.org NewsArticle of an article; the organisation is both author and publisher. */
export function newsArticleJsonLd(entry: NewsEntry, site: URL | string, siteName: string, ownImage = true): Record<string, unknown> {
  const meta = articleMeta(entry, site, ownImage);
  const organisation = { '@type': 'Organization', name: siteName, url: new URL('/', site).href };
  return {
    '@context': 'https://schema.org',
    '@type': 'NewsArticle',
    headline: entry.data.heading,
    ...(entry.data.subheading ? { description: entry.data.subheading } : {}),
    // The generated 1.91:1 picture, and the article's own illustration when it has one.
    image: [meta.image.url, ...(entry.data.imageUrl ? [new URL(entry.data.imageUrl, site).href] : [])],
    datePublished: meta.publishedTime,
    // The frontmatter has no update time, so dateModified is left out rather than guessed
    // (schema.org: optional; Google reads datePublished alone).
    author: [organisation],
    publisher: organisation,
    mainEntityOfPage: { '@type': 'WebPage', '@id': meta.url },
  };
}

/**
 * JSON for the body of a `<script type="application/ld+json">`: HTML ends a script element at the
 * first `</script` whatever its type (HTML, "script data state"), and `<!--` changes how the
 * parser reads on; escaping every `<`, `>` and `&` as \uXXXX keeps the JSON identical for a JSON
 * parser while no markup can appear. U+2028/U+2029 are escaped too, as JSON-in-JS habit.
 */
export function serializeJsonLd(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `lastmod` for the sitemap (sitemaps.org protocol: "the date of last modification of the page"),
 * by site path: each published article's publication time, and for the news list's pages (/news/,
 * /news/page/<n>/) the newest of them, since a new article moves one article onto each following
 * page. Read from the Markdown files' frontmatter because astro.config.mjs runs before the content
 * collections exist; the build validates the same files, so an unreadable date is skipped here
 * and reported there.
 */
export function articleLastmods(files: ReadonlyArray<{ id: string; text: string }>): Map<string, string> {
  const dates = new Map<string, string>();
  let newest: string | undefined;
  for (const { id, text } of files) {
    const frontmatter = extractRawFrontmatter(text);
    // YAML's core schema spells true as true, True or TRUE; the build reads it so too.
    if (rawTopLevelScalar(frontmatter, 'draft')?.toLowerCase() === 'true') continue;
    const createdAt = rawTopLevelScalar(frontmatter, 'createdAt');
    if (createdAt === undefined || Number.isNaN(Date.parse(createdAt))) continue;
    const time = toUtcDateTime(createdAt);
    dates.set(articlePath(id), time);
    if (newest === undefined || Date.parse(time) > Date.parse(newest)) newest = time;
  }
  if (newest !== undefined) {
    const pages = newsPageCount(dates.size);
    for (let page = 1; page <= pages; page++) dates.set(newsListPath(page), newest);
  }
  return dates;
}
