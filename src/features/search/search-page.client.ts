/**
 * The /search/ page's behaviour (src/pages/search.astro). Progressive enhancement: without
 * JavaScript the form still sends `?q=` to /search/ and the page says that search needs it (a
 * notice removed here). With
 * it, the query of the address (a shareable link) is searched on load, and each new query is
 * searched as it is typed and put in the address (history.replaceState), with the count in a
 * polite live region. Pagefind's script and index are fetched from /pagefind/ on first use.
 */
import { formatDate } from '../../lib/calendar.ts';
import { MAX_QUERY_CHARS, queryOf, resultCountText, resultView, SHOWN_RESULTS, type PagefindResultData, type SearchResultView } from './search-result.ts';

interface Pagefind {
  options(options: Record<string, unknown>): Promise<void>;
  debouncedSearch(query: string, options?: Record<string, unknown>, ms?: number): Promise<{ results: Array<{ data(): Promise<PagefindResultData> }> } | null>;
}

/** Where the build writes Pagefind's bundle (src/app/search-index.ts). */
const PAGEFIND_URL = '/pagefind/pagefind.js';
/** Pause after the last keystroke before searching, in ms. */
const TYPING_PAUSE_MS = 250;

let loading: Promise<Pagefind> | undefined;
function pagefind(): Promise<Pagefind> {
  loading ??= (import(/* @vite-ignore */ PAGEFIND_URL) as Promise<Pagefind>).then(async (module) => {
    await module.options({ excerptLength: 24 });
    return module;
  });
  return loading;
}

function resultItem(view: SearchResultView): HTMLLIElement {
  const item = document.createElement('li');
  item.className = 'search-result';
  const heading = document.createElement('h2');
  const link = document.createElement('a');
  link.href = view.url;
  link.textContent = view.title;
  heading.append(link);
  item.append(heading);
  if (view.date) {
    const meta = document.createElement('p');
    meta.className = 'meta';
    const time = document.createElement('time');
    time.dateTime = view.date;
    time.textContent = formatDate(view.date);
    meta.append(time);
    item.append(meta);
  }
  const excerpt = document.createElement('p');
  for (const part of view.excerpt) {
    if (!part.marked) excerpt.append(part.text);
    else {
      const mark = document.createElement('mark');
      mark.textContent = part.text;
      excerpt.append(mark);
    }
  }
  item.append(excerpt);
  return item;
}

export function startSearch(root: HTMLElement): void {
  const input = root.querySelector<HTMLInputElement>('[data-search-input]');
  const form = root.querySelector<HTMLFormElement>('[data-search-form]');
  const status = root.querySelector<HTMLElement>('[data-search-status]');
  const list = root.querySelector<HTMLOListElement>('[data-search-results]');
  if (!input || !form || !status || !list) return;
  root.querySelector('[data-search-no-script]')?.remove();
  root.dataset['ready'] = 'true';
  let latest = 0;

  const run = async (query: string): Promise<void> => {
    const ticket = ++latest;
    if (!query) {
      list.replaceChildren();
      status.textContent = resultCountText('', 0);
      return;
    }
    status.textContent = 'Searching…';
    try {
      const found = await (await pagefind()).debouncedSearch(query, {}, TYPING_PAUSE_MS);
      // null: a later keystroke replaced this search.
      if (found === null || ticket !== latest) return;
      const views = (await Promise.all(found.results.slice(0, SHOWN_RESULTS).map((result) => result.data()))).map(resultView);
      if (ticket !== latest) return;
      list.replaceChildren(...views.map(resultItem));
      status.textContent = resultCountText(query, found.results.length);
    } catch {
      if (ticket === latest) status.textContent = 'Search is unavailable right now. Please try again later.';
    }
  };

  const searchAndRemember = (query: string) => {
    const url = new URL(location.href);
    if (query) url.searchParams.set('q', query);
    else url.searchParams.delete('q');
    history.replaceState(null, '', url);
    void run(query);
  };

  input.maxLength = MAX_QUERY_CHARS;
  input.addEventListener('input', () => searchAndRemember(input.value.trim()));
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    searchAndRemember(input.value.trim());
  });
  const initial = queryOf(location.search);
  input.value = initial;
  void run(initial);
}
