/**
 * The site's real content (content/news/*.md, content/assistant/*.md) read with fs and a tiny
 * frontmatter parser, so assistant tests run without Astro and follow the content as it changes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { bodyStartLine } from '../../src/features/chat/help-facts.ts';
import type { KnowledgeDoc, NewsDoc } from '../../src/features/chat/passages.ts';

const ROOT = join(import.meta.dirname, '../..');

/** `key: value` lines between `---` fences; quotes stripped. Enough for our frontmatter. */
export function parseFrontmatter(source: string): { data: Record<string, string>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(source);
  if (!match) return { data: {}, body: source };
  const data: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const field = /^([A-Za-z_][\w-]*):\s*(.*)$/.exec(line);
    if (field) data[field[1]!] = field[2]!.trim().replace(/^(['"])(.*)\1$/, '$2');
  }
  return { data, body: match[2]! };
}

function markdownFiles(dir: string): Array<{ id: string; source: string }> {
  const path = join(ROOT, dir);
  return readdirSync(path)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => ({ id: basename(name, '.md'), source: readFileSync(join(path, name), 'utf8') }));
}

export function siteNews(): NewsDoc[] {
  return markdownFiles('content/news').map(({ id, source }) => {
    const { data, body } = parseFrontmatter(source);
    return { id, heading: data['heading'] ?? id, subheading: data['subheading'] ?? null, body, createdAt: new Date(data['createdAt'] ?? 0), draft: data['draft'] === 'true' };
  });
}

export function siteKnowledge(): KnowledgeDoc[] {
  return markdownFiles('content/assistant').map(({ id, source }) => {
    const { data, body } = parseFrontmatter(source);
    return { id, title: data['title'] ?? id, summary: data['summary'], keywords: data['keywords'], page: data['page'], body, file: `content/assistant/${id}.md`, bodyLine: bodyStartLine(source, body) };
  });
}
