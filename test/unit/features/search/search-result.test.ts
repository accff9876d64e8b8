import { describe, expect, it } from 'vitest';
import { excerptParts, queryOf, resultCountText, resultView, SHOWN_RESULTS } from '../../../../src/features/search/search-result.ts';

describe('search results', () => {
  it("cuts Pagefind's excerpt at its markers, never reading the text as HTML", () => {
    expect(excerptParts('Send <mark>sellers</mark> a <script> tag')).toEqual([
      { text: 'Send ', marked: false },
      { text: 'sellers', marked: true },
      { text: ' a <script> tag', marked: false },
    ]);
  });

  it('shows the title and a valid date, or the address when a page has no title', () => {
    expect(resultView({ url: '/news/a/', excerpt: '', meta: { title: 'A', date: '2026-01-05T08:30:00Z' } })).toMatchObject({ title: 'A', date: '2026-01-05T08:30:00Z' });
    expect(resultView({ url: '/docs/api/', excerpt: '', meta: { date: 'soon' } })).toMatchObject({ title: '/docs/api/', date: undefined });
  });

  it('says how many results there are, for the live region', () => {
    expect(resultCountText('walrus', 0)).toBe('No results for “walrus”.');
    expect(resultCountText('walrus', 1)).toBe('1 result for “walrus”.');
    expect(resultCountText('walrus', SHOWN_RESULTS + 5)).toBe(`${SHOWN_RESULTS + 5} results for “walrus”, the first ${SHOWN_RESULTS} shown.`);
  });

  it('reads the query from ?q=, trimmed and bounded', () => {
    expect(queryOf('?q=%20walrus%20')).toBe('walrus');
    expect(queryOf('')).toBe('');
    expect(queryOf(`?q=${'a'.repeat(500)}`)).toHaveLength(200);
  });
});
