/**
 * The related page at the end of an article (the `link` field): what the reader sees of it.
 * Editors write a path on this site ("/contact") or an absolute URL; a path is named by the
 * title of the page it leads to, never shown raw, since "/contact" tells a reader less than
 * "Contact" and reads as markup that leaked.
 */

export type RelatedLink =
  | { kind: 'external'; href: string; host: string }
  | { kind: 'internal'; href: string; title: string };

/**
 * The key a site path is looked up by: without query or fragment, and ending in "/" unless its
 * last segment names a file ("/sellers.json"), the way the site's pages are addressed ("/stats/").
 */
export function sitePathKey(path: string): string {
  const bare = path.replace(/[?#].*$/, '') || '/';
  const last = bare.slice(bare.lastIndexOf('/') + 1);
  return bare.endsWith('/') || last.includes('.') ? bare : `${bare}/`;
}

/**
 * A readable name for a site path nobody gave a title: its last segment, with hyphens and
 * underscores as spaces and a capital first letter ("/docs/rate-limits/" -> "Rate limits").
 */
export function labelFromPath(path: string): string {
  const segments = sitePathKey(path).split('/').filter(Boolean);
  const last = segments.at(-1);
  if (!last) return 'Home page';
  let words: string;
  try {
    words = decodeURIComponent(last);
  } catch {
    words = last; // A malformed escape: the segment as written still reads better than nothing.
  }
  words = words.replace(/[-_]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Home page';
}

/**
 * The related link of an article. `titleOf` answers the title of a site page by its key
 * (sitePathKey), or undefined for a page it does not know, which is then named from its path.
 */
export function relatedLink(link: string, titleOf: (key: string) => string | undefined): RelatedLink {
  if (/^https?:\/\//i.test(link)) return { kind: 'external', href: link, host: new URL(link).hostname };
  return { kind: 'internal', href: link, title: titleOf(sitePathKey(link)) ?? labelFromPath(link) };
}
