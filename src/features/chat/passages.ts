/**
 * What the assistant can quote: news articles and knowledge-base pages cut into passages small
 * enough to answer one question (a heading's section, long sections split at paragraphs), each
 * with the page a reader should open for more. Pure: input is plain objects, so tests and the
 * Astro content layer feed it the same way.
 */

/** A news article as the assistant needs it (content collection `news`). */
export interface NewsDoc {
  /** Collection id; the article lives at `/news/<id>`. */
  id: string;
  heading: string;
  subheading?: string | null | undefined;
  /** Markdown body. */
  body: string;
  createdAt: Date;
  /** Drafts are never quoted. */
  draft?: boolean | undefined;
}

/** A knowledge-base page (content collection `assistant`, `content/assistant/*.md`). */
export interface KnowledgeDoc {
  id: string;
  title: string;
  /** One line on what the page covers; indexed as context for each of its passages. */
  summary?: string | undefined;
  /** Words a visitor may ask with that the page does not use; indexed as context, like the summary. */
  keywords?: string | undefined;
  /** The site page the help page describes (`/stats`): every passage links there. */
  page?: string | undefined;
  /**
   * Markdown body. Site links in it (`[form](/contact)`) become the passages' "read more";
   * numbers the deployment decides are `{{fact}}` placeholders (help-facts.ts), kept as written.
   */
  body: string;
  /** The source file, named in build errors (e.g. `content/assistant/rate-limits.md`). */
  file?: string | undefined;
  /** The line of `file` on which the body starts, so that errors give the file's own line numbers. */
  bodyLine?: number | undefined;
}

/** One quotable piece of content. */
export interface Passage {
  /** Unique: `news:<id>#<n>` or `kb:<id>#<n>`. */
  id: string;
  kind: 'news' | 'kb';
  /** The page title: the article heading or the knowledge page title. */
  title: string;
  /** The article subheading, or the section heading within a knowledge page. */
  section: string;
  /** Plain text of the passage (Markdown removed, code blocks kept apart in `code`). */
  text: string;
  /** Code blocks of the passage (e.g. a curl example), verbatim. */
  code: string[];
  /** Extra words that describe the whole page (knowledge summary), searched with a low weight. */
  context: string;
  /** Site path to read more (`/news/<id>`, `/contact`...), if the passage has one. */
  url: string | undefined;
  /** ISO date of a news article. */
  date: string | undefined;
}

/**
 * How a passage's page is named in a list of sources: an article by its heading, a knowledge
 * passage by its page title and section ("Data API: Limits").
 */
export function passageTitle(passage: Passage): string {
  if (passage.kind === 'news' || !passage.section || passage.section === passage.title) return passage.title;
  return `${passage.title}: ${passage.section}`;
}

/** Passages longer than this (characters) are split at paragraph boundaries. */
const MAX_PASSAGE_CHARS = 900;

/** A site path in running text: starts with a letter, so "/64" or "and/or" are not paths. */
const BARE_PATH = /(?:^|[\s(])(\/[a-z][\w\-./]*[\w/])/gi;

const LINK = /!?\[([^\]]*)\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g;

/** A link to a page of this site: an absolute path (not a protocol-relative `//host`). */
function sitePath(href: string): string | undefined {
  if (href.startsWith('/') && !href.startsWith('//')) return href;
  return undefined;
}

interface Block {
  kind: 'prose' | 'code';
  text: string;
}

/** Markdown inline syntax to plain text, collecting link targets in order. */
export function inlineToPlain(markdown: string, links: string[] = []): string {
  return markdown
    .replace(LINK, (match, label: string, href: string) => {
      if (match.startsWith('!')) return label; // image: keep its alt text
      const path = sitePath(href);
      if (path) links.push(path);
      // Plain text keeps the address beside its label, so a reader can still follow it (the
      // widget turns site paths back into links). A label that is the path already is enough.
      if (!path && !/^https?:/.test(href)) return label;
      return label.trim() === (path ?? href) ? label : `${label} (${path ?? href})`;
    })
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]+)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_](\S(?:.*?\S)?)[*_](?=[\s).,;:!?]|$)/g, '$1$2');
}

/** Split a Markdown body into sections (text before the first heading has heading ''). */
function sections(markdown: string): Array<{ heading: string; blocks: Block[] }> {
  const out: Array<{ heading: string; blocks: Block[] }> = [{ heading: '', blocks: [] }];
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  let paragraph: string[] = [];
  let fence: { marker: string; lines: string[] } | undefined;
  const current = () => out[out.length - 1]!;
  const flush = () => {
    const text = paragraph.join('\n').trim();
    if (text) current().blocks.push({ kind: 'prose', text });
    paragraph = [];
  };
  for (const line of lines) {
    if (fence) {
      if (line.trim().startsWith(fence.marker)) {
        current().blocks.push({ kind: 'code', text: fence.lines.join('\n') });
        fence = undefined;
      } else fence.lines.push(line);
      continue;
    }
    const fenceOpen = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fenceOpen) {
      flush();
      fence = { marker: fenceOpen[1]!, lines: [] };
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      flush();
      out.push({ heading: inlineToPlain(heading[1]!), blocks: [] });
      continue;
    }
    if (line.trim() === '') flush();
    else paragraph.push(line);
  }
  if (fence) current().blocks.push({ kind: 'code', text: fence.lines.join('\n') });
  flush();
  return out.filter((section) => section.blocks.length > 0);
}

/**
 * A prose block as plain text: wrapped lines joined into one line per paragraph, and one line
 * per list item, which keeps a leading "- " so it still reads as a list.
 */
function proseToPlain(block: string, links: string[]): string {
  const lines: string[] = [];
  for (const raw of block.split('\n')) {
    const line = raw.replace(/^\s*>\s?/, '');
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) lines.push(`- ${item[1]!.trim()}`);
    else if (lines.length > 0) lines[lines.length - 1] += ` ${line.trim()}`;
    else lines.push(line.trim());
  }
  return lines.map((line) => inlineToPlain(line, links)).join('\n');
}

/** Group blocks into passages of at most MAX_PASSAGE_CHARS (a single longer block stays whole). */
function groupBlocks(blocks: Block[]): Block[][] {
  const groups: Block[][] = [];
  let group: Block[] = [];
  let size = 0;
  for (const block of blocks) {
    if (group.length > 0 && size + block.text.length > MAX_PASSAGE_CHARS) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(block);
    size += block.text.length;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

function toPassageParts(blocks: Block[]): { text: string; code: string[]; links: string[] } {
  const links: string[] = [];
  const prose: string[] = [];
  const code: string[] = [];
  for (const block of blocks) {
    if (block.kind === 'code') code.push(block.text);
    else prose.push(proseToPlain(block.text, links));
  }
  const text = prose.join('\n\n');
  // Paths written out in the prose ("at /sellers.json") count as links after the Markdown ones.
  return { text, code, links: [...new Set([...links, ...sitePaths(text)])] };
}

/**
 * Pages named in plain text ("see /docs/api."), in order, trailing dots dropped. API endpoints
 * (`/api/...`) are things to call, not pages to read, so they are not offered as links.
 */
export function sitePaths(text: string): string[] {
  return [...text.matchAll(BARE_PATH)].map((match) => match[1]!.replace(/[.]+$/, '')).filter((path) => !path.startsWith('/api/'));
}

/** An article is quoted from its subheading and body; it always links to its own page. */
export function newsPassages(doc: NewsDoc): Passage[] {
  if (doc.draft) return [];
  const url = `/news/${doc.id}`;
  const date = doc.createdAt.toISOString().slice(0, 10);
  const blocks = sections(doc.body).flatMap((section) =>
    section.heading ? [{ kind: 'prose' as const, text: section.heading }, ...section.blocks] : section.blocks,
  );
  const groups = blocks.length > 0 ? groupBlocks(blocks) : [[]];
  return groups.map((group, n) => {
    const { text, code } = toPassageParts(group);
    return { id: `news:${doc.id}#${n}`, kind: 'news', title: doc.heading, section: doc.subheading ?? '', text, code, context: '', url, date };
  });
}

/**
 * A knowledge page is cut at its headings. A passage's "read more" is the page it describes
 * (`page:`), else the first site link in it (a Markdown link or a path written out), so an editor
 * decides links by writing them; a passage without one is quoted without a link rather than with
 * a loosely related one.
 */
export function knowledgePassages(doc: KnowledgeDoc): Passage[] {
  const parts = sections(doc.body).flatMap((section) => groupBlocks(section.blocks).map((group) => ({ heading: section.heading, ...toPassageParts(group) })));
  return parts.map((part, n) => ({
    id: `kb:${doc.id}#${n}`,
    kind: 'kb',
    title: doc.title,
    section: part.heading,
    text: part.text,
    code: part.code,
    // The page's description is its opening passage's: it says what the page is about, and
    // given to every section it would outweigh the section that answers the question.
    context: n === 0 ? [doc.title, doc.summary ?? '', doc.keywords ?? ''].join(' ').trim() : doc.title,
    url: doc.page ?? part.links[0],
    date: undefined,
  }));
}
