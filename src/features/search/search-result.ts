/**
 * Site search's results as the page shows them (src/pages/search.astro): pure, so the client
 * script stays a thin DOM layer and the rules are tested without a browser. Pagefind
 * (https://pagefind.app, its JS API) gives each result's URL, its `meta` (title, date: the
 * article page marks them, src/pages/news/[id].astro) and an excerpt of the page's text with the
 * matched words between `<mark>` and `</mark>`; the text itself is not HTML-escaped (a page about
 * `<script>` has that text in it), so the excerpt is never parsed as HTML: it is cut at the
 * markers into text and marked text, which the page renders as text nodes and <mark> elements.
 */

/** How many results are shown; the count says how many there are. */
export const SHOWN_RESULTS = 20;

/** What Pagefind's `result.data()` resolves to, as far as the page reads it. */
export interface PagefindResultData {
  url: string;
  excerpt: string;
  meta: Record<string, string | undefined>;
}

export interface ExcerptPart {
  text: string;
  marked: boolean;
}

export interface SearchResultView {
  url: string;
  title: string;
  /** RFC 3339 publication time of an article; undefined for other pages. */
  date: string | undefined;
  excerpt: ExcerptPart[];
}

/** The excerpt cut at Pagefind's markers; empty parts dropped. */
export function excerptParts(excerpt: string): ExcerptPart[] {
  const parts: ExcerptPart[] = [];
  for (const [i, piece] of excerpt.split(/<mark>|<\/mark>/).entries()) {
    // split() alternates: outside, inside, outside... (markers never nest).
    if (piece) parts.push({ text: piece, marked: i % 2 === 1 });
  }
  return parts;
}

/** A result's view: its page's title (its address when it has none) and its date when it is valid. */
export function resultView(data: PagefindResultData): SearchResultView {
  const date = data.meta['date'];
  return {
    url: data.url,
    title: data.meta['title']?.trim() || data.url,
    date: date !== undefined && !Number.isNaN(Date.parse(date)) ? date : undefined,
    excerpt: excerptParts(data.excerpt),
  };
}

/** What the live region says after a search (WCAG 2.2 4.1.3 Status Messages). */
export function resultCountText(query: string, total: number): string {
  if (!query.trim()) return 'Type a word to search the news and the API reference.';
  if (total === 0) return `No results for “${query.trim()}”.`;
  const shown = total > SHOWN_RESULTS ? `, the first ${SHOWN_RESULTS} shown` : '';
  return `${total} ${total === 1 ? 'result' : 'results'} for “${query.trim()}”${shown}.`;
}

/** The query of a /search/ URL (`?q=`), trimmed; "" when there is none. */
export function queryOf(search: string): string {
  return (new URLSearchParams(search).get('q') ?? '').trim().slice(0, MAX_QUERY_CHARS);
}

/** Longest query searched: a pasted page is not a query, and Pagefind's work grows with it. */
export const MAX_QUERY_CHARS = 200;
