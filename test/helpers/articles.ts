/**
 * Test helper: the real articles of content/news, read the way the `news` collection reads
 * them (Astro's frontmatter parser, then `restoreYamlTimestamps` as in loader.server.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { parseFrontmatter } from 'astro/markdown';
import { extractRawFrontmatter, restoreYamlTimestamps } from '../../src/features/news/frontmatter.ts';

export const NEWS_DIR = new URL('../../content/news/', import.meta.url);

/** Frontmatter as the collection schema receives it. */
export function frontmatterOf(fileText: string): Record<string, unknown> {
  const { frontmatter } = parseFrontmatter(fileText);
  return restoreYamlTimestamps(frontmatter, extractRawFrontmatter(fileText));
}

/** Every content/news/*.md as { id, data } (unvalidated). */
export function readArticles(): { id: string; data: Record<string, unknown> }[] {
  return readdirSync(NEWS_DIR)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => ({ id: name.slice(0, -3), data: frontmatterOf(readFileSync(new URL(name, NEWS_DIR), 'utf8')) }));
}
