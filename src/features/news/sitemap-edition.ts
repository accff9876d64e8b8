/**
 * The sitemap (sitemaps.org protocol) as of one edition of a scheduled build (schedule.ts).
 * @astrojs/sitemap lists every page the build wrote, scheduled articles included; each edition's
 * copy keeps the articles published by its instant, and the news list's pages it has, each dated
 * (`lastmod`) by the newest article, written as the integration writes dates (ISO 8601 with
 * milliseconds). Pure text edits of the integration's XML.
 */
import { articlePath } from './article-meta.ts';
import { newsListPath, newsPageCount } from './pagination.ts';

export interface SitemapEdition {
  /** Article ids not yet published in this edition. */
  hidden: ReadonlySet<string>;
  /** How many articles the edition publishes (its news list's length). */
  published: number;
  /** Its newest article's time (ms since the epoch), or null. */
  newest: number | null;
}

const URL_ENTRY = /<url>([\s\S]*?)<\/url>/g;
const LIST_PAGE = /^\/news\/(?:page\/\d+\/)?$/;

/** `xml` (one sitemap file of the build) as of the edition; `site` resolves the news list's pages. */
export function sitemapEdition(xml: string, edition: SitemapEdition, site: string): string {
  const hiddenPaths = new Set([...edition.hidden].map(articlePath));
  let listAt = -1;
  const kept: string[] = [];
  for (const match of xml.matchAll(URL_ENTRY)) {
    const loc = /<loc>([^<]*)<\/loc>/.exec(match[1] ?? '')?.[1];
    const path = loc === undefined ? undefined : new URL(loc).pathname;
    if (path !== undefined && LIST_PAGE.test(path)) {
      if (listAt === -1) listAt = kept.length;
      continue;
    }
    if (path !== undefined && hiddenPaths.has(path)) continue;
    kept.push(match[0]);
  }
  if (listAt !== -1) {
    const lastmod = edition.newest === null ? '' : `<lastmod>${new Date(edition.newest).toISOString()}</lastmod>`;
    const pages = Array.from({ length: newsPageCount(edition.published) }, (_, i) => `<url><loc>${new URL(newsListPath(i + 1), site).href}</loc>${lastmod}</url>`);
    kept.splice(listAt, 0, ...pages);
  }
  const start = xml.search(/<url>/);
  const end = xml.lastIndexOf('</url>');
  if (start === -1 || end === -1) return xml;
  return `${xml.slice(0, start)}${kept.join('')}${xml.slice(end + '</url>'.length)}`;
}
