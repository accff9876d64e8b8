/**
 * Related links (`link` in an article's frontmatter) that point into this site must lead to one
 * of its pages: `link: /nope-page` passed the schema (a path is a valid link) and shipped as a
 * dead link. What answers a path is known only once the site is built, so the build checks the
 * published list (the prebuilt /api/news, links already resolved against the site's origin)
 * against a predicate the build step supplies (src/app/news-links-integration.ts).
 */
import type { NewsProblem } from './news-problems.ts';

export interface LinkedArticle {
  id: string;
  link: string | null;
}

/**
 * The articles whose link names a path of `site` that `answers` says nothing serves, one problem
 * each, naming the file. Links to other origins are not checked (the build does not go online).
 */
export function deadSiteLinks(articles: readonly LinkedArticle[], site: string, answers: (path: string) => boolean): NewsProblem[] {
  const origin = new URL(site).origin;
  const problems: NewsProblem[] = [];
  for (const { id, link } of articles) {
    if (!link) continue;
    const url = new URL(link);
    if (url.origin !== origin || answers(url.pathname)) continue;
    problems.push({
      file: `content/news/${id}.md`, // the loader's NEWS_DIR; the file name is the id
      message: `link "${url.pathname}${url.search}${url.hash}" leads to no page of this site: no page, file or route answers ${url.pathname}`,
      hint: 'Point link at an existing page (e.g. /stats or /contact), at an absolute https URL, or remove it.',
    });
  }
  return problems;
}
