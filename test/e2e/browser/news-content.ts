/**
 * What the browser tests expect of the news pages, read from content/news itself, so adding or
 * editing an article never needs a test change.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractRawFrontmatter, rawTopLevelScalar } from '../../../src/features/news/frontmatter.ts';

export interface ContentArticle {
  /** The file name without `.md`: the page is /news/<id>/. */
  id: string;
  heading: string;
  createdAt: string;
  draft: boolean;
  /** The related page as written (a URL or a site path), or null. */
  link: string | null;
  /** The first paragraph of the body as a reader sees it (Markdown marks removed, spaces collapsed). */
  firstParagraph: string;
}

/** Markdown inline marks to plain text: links to their text, emphasis and code marks dropped. */
function plainText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

export function readArticles(dir = 'content/news'): ContentArticle[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const raw = extractRawFrontmatter(text);
      const body = text.slice(text.indexOf('---', 3) + 3).trim();
      const heading = rawTopLevelScalar(raw, 'heading');
      const createdAt = rawTopLevelScalar(raw, 'createdAt');
      if (!heading || !createdAt) throw new Error(`${file}: no heading or createdAt in its frontmatter`);
      return {
        id: file.slice(0, -'.md'.length),
        heading,
        createdAt,
        draft: rawTopLevelScalar(raw, 'draft') === 'true',
        link: rawTopLevelScalar(raw, 'link') ?? null,
        firstParagraph: plainText(body.split(/\r?\n\s*\r?\n/)[0] ?? ''),
      };
    });
}

/** Published articles, newest first (the order of the home page and /news). */
export function publishedArticles(): ContentArticle[] {
  // The site's rule (news-list.ts newestFirst): newest first, equal times by id.
  return readArticles()
    .filter((a) => !a.draft)
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function draftArticles(): ContentArticle[] {
  return readArticles().filter((a) => a.draft);
}
