/**
 * Site-wide names and navigation, in one place so pages, the layout, the feed and the footer
 * agree. Rename the service here.
 */
import { PATHS } from '../lib/paths.ts';

export const SITE_NAME = 'Meridian Ad Exchange';

export const SITE_DESCRIPTION =
  'Meridian Ad Exchange runs transparent real-time advertising auctions: news, our sellers.json, daily market statistics and a public data API.';

export interface NavItem {
  /** Visible text of the link. */
  label: string;
  /** Site path; a page is "current" when its path is this one or below it. */
  href: string;
}

/** The main navigation of every page (Base.astro). */
export const NAV: readonly NavItem[] = [
  { label: 'Home', href: '/' },
  { label: 'News', href: '/news/' },
  { label: 'Stats', href: `${PATHS.stats}/` },
  { label: 'Contact', href: '/contact/' },
  { label: 'API docs', href: '/docs/api/' },
];

/**
 * Titles of the site's own pages and files by path (as news/related-link.ts sitePathKey writes
 * it), for links that name their target, such as an article's related page. A page's title is its
 * <title> without the site name (pages.test.ts checks that they agree); a file is named as the
 * footer names it. Articles are named by their heading, from the collection.
 */
export const PAGE_TITLES: Readonly<Record<string, string>> = {
  '/': SITE_NAME,
  '/news/': 'News',
  [`${PATHS.stats}/`]: 'Daily statistics',
  '/contact/': 'Contact',
  '/docs/api/': 'API reference',
  [PATHS.sellers]: 'sellers.json',
  '/rss.xml': 'News feed (RSS)',
  [PATHS.news]: 'News API (JSON)',
};

/** Whether `href` is the current section for `pathname` (aria-current in the navigation). */
export function isCurrent(href: string, pathname: string): boolean {
  const path = pathname.endsWith('/') ? pathname : `${pathname}/`;
  return href === '/' ? path === '/' : path.startsWith(href);
}
