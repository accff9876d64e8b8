/**
 * How much of the news archive each page and the feed carry, and where the news list's pages
 * live. Pure: the routes (src/pages/news/[...page].astro, src/pages/index.astro,
 * src/pages/rss.xml.ts) and the sitemap's lastmod (article-meta.ts) read it.
 *
 * Page 1 of the list is /news/ and page n > 1 is /news/page/<n>/. Two segments under /news/, so
 * no list page can take the address of an article (/news/<id>/, one segment, where an id may be
 * all digits), and the id "page" is refused (schema.ts `articleIdProblem`) so that no article
 * sits at the folder that holds the list's pages. /news/page/1/ is never written: page 1 has one
 * address.
 */
import type { PaginateFunction } from 'astro';

/**
 * Articles per list page. A card is about 0.5 KB of HTML, so a page stays near 19 KB with its
 * shell whatever the archive holds (all 5,000 on one page were 2.5 MB), and 20 headings with
 * their dates and subheadings are what a reader scans before paging on (about three screens on
 * a laptop).
 */
export const NEWS_PAGE_SIZE = 20;

/** Articles on the home page's "Latest news": a glance, with a link to the full list. */
export const HOME_NEWS_COUNT = 3;

/**
 * Items in /rss.xml, newest first. Feed readers poll (hourly to daily) and only need what is new
 * since their last visit; 50 covers months of this site's pace and keeps the feed near 18 KB
 * instead of growing with the archive (RSS 2.0 sets no limit; WordPress's default is 10).
 * Every article stays on its page, in the list and in /api/news.
 */
export const FEED_ITEMS = 50;

/** The folder under /news/ that holds the list's later pages; not allowed as an article id. */
export const NEWS_PAGES_SEGMENT = 'page';

/** How many page numbers either side of the current one the navigation links (1 and the last always). */
export const PAGE_LINKS_AROUND = 2;

/** The address of list page `pageNumber` (1-based): "/news/" for 1, "/news/page/<n>/" after. */
export function newsListPath(pageNumber: number): string {
  if (!Number.isInteger(pageNumber) || pageNumber < 1) throw new RangeError(`a news page number is a whole number from 1, got ${pageNumber}`);
  return pageNumber === 1 ? '/news/' : `/news/${NEWS_PAGES_SEGMENT}/${pageNumber}/`;
}

/** How many list pages `articles` articles fill (at least one: an empty list still has /news/). */
export function newsPageCount(articles: number): number {
  return Math.max(1, Math.ceil(articles / NEWS_PAGE_SIZE));
}

/**
 * The rest parameter of src/pages/news/[...page].astro for list page `pageNumber`: none for page
 * 1 (the route's own folder, /news/), "page/<n>" after.
 */
export function newsListParam(pageNumber: number): string | undefined {
  return pageNumber === 1 ? undefined : newsListPath(pageNumber).slice('/news/'.length, -1);
}

/**
 * Astro's `paginate()` names the pages of a rest route by number alone ("/news", "/news/3"),
 * which would be the address of an article whose id is "3". Its `format` option passes every
 * URL it makes (current, prev, next, first, last) through here, which puts them where the pages
 * are published.
 */
export function toNewsListUrl(paginateUrl: string): string {
  const number = /\/(\d+)\/?$/.exec(paginateUrl)?.[1];
  return newsListPath(number === undefined ? 1 : Number(number));
}

/**
 * The static paths of the news list of `entries` (in list order), NEWS_PAGE_SIZE a page, for
 * src/pages/news/[...page].astro and a scheduled edition's copy of it (`params` then holds the
 * edition's `at`). paginate() alone would publish page n at /news/<n>/, an article's address:
 * the URLs it hands the page go through toNewsListUrl, and the page is written where they point.
 */
export function newsListPaths<E>(paginate: PaginateFunction, entries: readonly E[], params: Record<string, string> = {}) {
  return paginate(entries, { pageSize: NEWS_PAGE_SIZE, params, format: toNewsListUrl }).map(({ props }) => ({
    params: { ...params, page: newsListParam(props.page.currentPage) },
    props,
  }));
}

/** One place in the page navigation: a page number, or a gap standing for the numbers left out. */
export type PageLink = { page: number } | { gap: true };

/**
 * The page numbers the navigation shows: the first, the last, and PAGE_LINKS_AROUND either side
 * of the current page, with a gap where numbers are left out (a gap of one number shows the
 * number instead). 250 pages give at most 9 places instead of 250 links on every page.
 */
export function pageLinks(current: number, last: number, around = PAGE_LINKS_AROUND): PageLink[] {
  const shown = new Set([1, last]);
  for (let n = current - around; n <= current + around; n++) if (n >= 1 && n <= last) shown.add(n);
  const sorted = [...shown].sort((a, b) => a - b);
  const links: PageLink[] = [];
  let previous = 0;
  for (const n of sorted) {
    if (n - previous === 2) links.push({ page: n - 1 });
    else if (n - previous > 2) links.push({ gap: true });
    links.push({ page: n });
    previous = n;
  }
  return links;
}
