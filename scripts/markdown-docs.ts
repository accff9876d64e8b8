/**
 * What scripts/first-hour.ts reads in README.md and the guides of docs/: the shell commands they
 * show, the relative links between them, and the anchors their headings make. Pure functions over
 * the text, so that test/unit/scripts/markdown-docs.test.ts can check them on small documents.
 *
 * Headings are the ATX kind (`## Title`), the only kind these documents use; anchors follow
 * GitHub's rules (as the github-slugger package implements them): the heading's text as rendered,
 * lower-cased, every character that is not a letter, mark, digit, connector (`_`), space or hyphen
 * removed, each space made a hyphen, and `-1`, `-2`... appended to repeats.
 */
import { readdirSync } from 'node:fs';
import { join, posix } from 'node:path';

export interface DocCommand {
  /** Repository-relative path of the document, e.g. `docs/operators.md`. */
  file: string;
  /** 1-based line of the command's first line. */
  line: number;
  command: string;
}

/** README.md first, then every guide of docs/ by name: the order a newcomer reads and first-hour runs them. */
export function documentFiles(repo: string): string[] {
  const guides = readdirSync(join(repo, 'docs'), { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.md'))
    .map((entry) => `docs/${entry.name}`)
    .sort();
  return ['README.md', ...guides];
}

interface Line {
  line: number;
  text: string;
}

/** The lines outside fenced code blocks, and each fenced block with its info string. */
function split(markdown: string): { prose: Line[]; blocks: { lang: string; lines: Line[] }[] } {
  const prose: Line[] = [];
  const blocks: { lang: string; lines: Line[] }[] = [];
  let fence: { marker: string; lang: string; lines: Line[] } | undefined;
  markdown.split('\n').forEach((text, index) => {
    const line = index + 1;
    if (fence === undefined) {
      const opening = /^ {0,3}(`{3,}|~{3,})\s*([\w-]*)/.exec(text);
      if (opening) fence = { marker: opening[1]!, lang: opening[2]!, lines: [] };
      else prose.push({ line, text });
      return;
    }
    // A fence closes with a run of its own character at least as long as the opening one (CommonMark).
    const closing = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(text);
    if (closing && closing[1]![0] === fence.marker[0] && closing[1]!.length >= fence.marker.length) {
      blocks.push({ lang: fence.lang, lines: fence.lines });
      fence = undefined;
    } else {
      fence.lines.push({ line, text });
    }
  });
  return { prose, blocks };
}

/** The commands of a document's ```sh blocks: lines ending in `\` joined to the next, blank and `#` lines dropped. */
export function shellCommands(markdown: string, file: string): DocCommand[] {
  const commands: DocCommand[] = [];
  for (const block of split(markdown).blocks.filter((b) => b.lang === 'sh')) {
    let pending: DocCommand | undefined;
    for (const { line, text } of block.lines) {
      const part = text.trim();
      if (pending === undefined && (part === '' || part.startsWith('#'))) continue;
      const piece = part.replace(/\\$/, '').trim();
      pending = pending ? { ...pending, command: `${pending.command} ${piece}` } : { file, line, command: piece };
      if (!part.endsWith('\\')) {
        commands.push(pending);
        pending = undefined;
      }
    }
    if (pending) commands.push(pending);
  }
  return commands;
}

/** A heading's text as GitHub renders it: inline code, links, images, emphasis and HTML reduced to their text. */
function headingText(raw: string): string {
  return raw
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*{1,3}|(?<![\p{L}\p{N}])_{1,3}|_{1,3}(?![\p{L}\p{N}]))/gu, '');
}

/** GitHub's anchor for one heading text, before repeats are numbered. */
export function githubSlug(heading: string): string {
  return headingText(heading)
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a document defines: its headings' slugs (repeats numbered as GitHub does) and explicit `<a id|name="…">`. */
export function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const { text } of split(markdown).prose) {
    const heading = /^ {0,3}#{1,6}[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/.exec(text);
    if (heading) {
      const base = githubSlug(heading[1]!);
      let slug = base;
      while (found.has(slug)) {
        const count = (seen.get(base) ?? 0) + 1;
        seen.set(base, count);
        slug = `${base}-${count}`;
      }
      found.add(slug);
    }
    for (const explicit of text.matchAll(/<a\s[^>]*\b(?:id|name)="([^"]+)"/g)) found.add(explicit[1]!);
  }
  return found;
}

export interface DocLink {
  file: string;
  line: number;
  target: string;
}

/** Inline links and images (`[text](target)`, `![alt](target)`) and reference definitions (`[ref]: target`), outside code. */
export function links(markdown: string, file: string): DocLink[] {
  const found: DocLink[] = [];
  for (const { line, text } of split(markdown).prose) {
    const outsideCode = text.replace(/(`+)(?:(?!\1)[\s\S])*?\1/g, (span) => ' '.repeat(span.length));
    for (const match of outsideCode.matchAll(/\]\(\s*<?([^)\s>]*)>?(?:\s+"[^"]*")?\s*\)/g)) found.push({ file, line, target: match[1]! });
    const definition = /^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/.exec(outsideCode);
    if (definition) found.push({ file, line, target: definition[1]! });
  }
  return found;
}

/** A link to another site or scheme (`https:`, `mailto:`, `//host`), which this check leaves alone. */
function isExternal(target: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//');
}

export interface LinkProblem extends DocLink {
  problem: string;
}

/**
 * The relative links of the documents that do not resolve: the file does not exist (paths are
 * resolved from the linking document's folder, inside the repository), or its `#fragment` is not
 * an anchor of that Markdown file. `read(path)` returns a repository file's text, or undefined
 * when there is no such file (a folder counts as existing, with no anchors: read returns '').
 */
export function linkProblems(files: readonly string[], read: (path: string) => string | undefined): { checked: number; problems: LinkProblem[] } {
  const problems: LinkProblem[] = [];
  const anchorCache = new Map<string, Set<string>>();
  const anchorsOf = (path: string, text: string) => anchorCache.get(path) ?? anchorCache.set(path, anchors(text)).get(path)!;
  let checked = 0;
  for (const file of files) {
    const text = read(file) ?? '';
    for (const link of links(text, file)) {
      if (isExternal(link.target) || link.target === '') continue;
      checked++;
      const [rawPath = '', rawFragment] = link.target.split('#', 2) as [string, string | undefined];
      const path = rawPath === '' ? file : posix.normalize(posix.join(posix.dirname(file), decodeURIComponent(rawPath)));
      if (path.startsWith('../') || posix.isAbsolute(path)) {
        problems.push({ ...link, problem: `${link.target} points outside the repository` });
        continue;
      }
      const target = read(path);
      if (target === undefined) {
        problems.push({ ...link, problem: `${path} does not exist` });
        continue;
      }
      if (rawFragment === undefined || !path.endsWith('.md')) continue;
      const fragment = decodeURIComponent(rawFragment);
      if (!anchorsOf(path, target).has(fragment)) problems.push({ ...link, problem: `${path} has no heading whose anchor is #${fragment}` });
    }
  }
  return { checked, problems };
}

/**
 * Commands, in ```sh blocks or inline code, that send `npm run`'s output to a file without `-s`:
 * npm then writes its banner (`> package@version script`) on stdout, so the file starts with it.
 */
export function bannerRedirects(markdown: string, file: string): DocCommand[] {
  const redirectsNpm = (command: string) => /\bnpm run\b/.test(command) && !/\bnpm run (?:-s|--silent)\b/.test(command) && /(?:^|\s)1?>>?\s*(?!&)\S/.test(command);
  const inline: DocCommand[] = [];
  for (const { line, text } of split(markdown).prose) {
    for (const span of text.matchAll(/`([^`]+)`/g)) if (redirectsNpm(span[1]!)) inline.push({ file, line, command: span[1]! });
  }
  return [...shellCommands(markdown, file).filter((c) => redirectsNpm(c.command)), ...inline];
}
