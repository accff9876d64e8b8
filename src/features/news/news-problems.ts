/**
 * The news articles the loader could not publish, and why, for the dev server's error box.
 *
 * `astro dev` keeps running when an article is broken (the editor is fixing it), so the news
 * list, which would otherwise leave the article out silently, shows these instead. The loader
 * runs in Astro's content layer and the page in Vite's module runner: two module graphs in one
 * process, so the list lives on globalThis under a registered symbol rather than in a module
 * variable. Nothing is stored at import time; an empty list is the default.
 */
import { AstroError } from 'astro/errors';

export interface NewsProblem {
  /** The file, relative to the project: content/news/<id>.md. */
  file: string;
  /** What is wrong with it. */
  message: string;
  /** How to fix it, when the check knows. */
  hint?: string;
}

const KEY = Symbol.for('adtech.news-problems');

type Holder = { [KEY]?: readonly NewsProblem[] };

/** Replace the current problems (the loader, after each load or reload of a file). */
export function publishNewsProblems(problems: readonly NewsProblem[]): void {
  (globalThis as Holder)[KEY] = [...problems].sort((a, b) => a.file.localeCompare(b.file));
}

/** The problems of the last load, sorted by file; none when every article loaded. */
export function newsProblems(): readonly NewsProblem[] {
  return (globalThis as Holder)[KEY] ?? [];
}

/** The error that fails the build, naming every bad file (sorted, so the order is stable). */
export function newsProblemsError(problems: readonly NewsProblem[]): AstroError {
  const sorted = [...problems].sort((a, b) => a.file.localeCompare(b.file));
  const files = new Set(sorted.map((p) => p.file)).size;
  const lines = sorted.map((p) => `${p.file}: ${p.message}`);
  return new AstroError(
    `${files} news article${files === 1 ? '' : 's'} cannot be published:\n${lines.join('\n')}`,
    [...new Set(sorted.flatMap((p) => (p.hint ? [p.hint] : [])))].join(' ') || 'Fix each file named above.',
  );
}
