import { describe, expect, it } from 'vitest';
import { NEWS_PAGE_SIZE, newsListParam, newsListPath, newsPageCount, pageLinks, toNewsListUrl, type PageLink } from '../../../../src/features/news/pagination.ts';

/** pageLinks as text: "1 … 4 5 [6] 7 8 … 250". */
function shown(current: number, last: number): string {
  return pageLinks(current, last)
    .map((link: PageLink) => ('gap' in link ? '…' : link.page === current ? `[${link.page}]` : String(link.page)))
    .join(' ');
}

describe('the addresses of the news list', () => {
  it('puts page 1 at /news/ and page n under /news/page/, two segments deep, where no article id can reach', () => {
    expect(newsListPath(1)).toBe('/news/');
    expect(newsListPath(2)).toBe('/news/page/2/');
    expect(newsListPath(250)).toBe('/news/page/250/');
    expect(newsListPath(2).split('/').filter(Boolean)).toHaveLength(3);
  });

  it('refuses page numbers that are not whole numbers from 1', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => newsListPath(n), String(n)).toThrow(RangeError);
  });

  it('gives the route its rest parameter: none for page 1 (never /news/page/1/), "page/<n>" after', () => {
    expect(newsListParam(1)).toBeUndefined();
    expect(newsListParam(2)).toBe('page/2');
    expect(newsListParam(17)).toBe('page/17');
  });

  it("moves paginate()'s URLs of the rest route to where the pages are", () => {
    expect(toNewsListUrl('/news')).toBe('/news/');
    expect(toNewsListUrl('/news/')).toBe('/news/');
    expect(toNewsListUrl('/news/2')).toBe('/news/page/2/');
    expect(toNewsListUrl('/news/31/')).toBe('/news/page/31/');
  });

  it('counts the pages an archive fills, one at least', () => {
    expect(newsPageCount(0)).toBe(1);
    expect(newsPageCount(NEWS_PAGE_SIZE)).toBe(1);
    expect(newsPageCount(NEWS_PAGE_SIZE + 1)).toBe(2);
    expect(newsPageCount(5_000)).toBe(Math.ceil(5_000 / NEWS_PAGE_SIZE));
  });
});

describe('the page numbers the navigation shows', () => {
  it('shows every number when there are few pages', () => {
    expect(shown(1, 1)).toBe('[1]');
    expect(shown(2, 3)).toBe('1 [2] 3');
    expect(shown(1, 7)).toBe('[1] 2 3 … 7');
    expect(shown(4, 7)).toBe('1 2 3 [4] 5 6 7');
  });

  it('keeps the first and last, two either side of the current one, and a gap for the rest', () => {
    expect(shown(1, 250)).toBe('[1] 2 3 … 250');
    expect(shown(6, 250)).toBe('1 … 4 5 [6] 7 8 … 250');
    expect(shown(250, 250)).toBe('1 … 248 249 [250]');
  });

  it('shows a single left-out number instead of a gap standing for it', () => {
    expect(shown(5, 250)).toBe('1 2 3 4 [5] 6 7 … 250');
    expect(shown(246, 250)).toBe('1 … 244 245 [246] 247 248 249 250');
  });

  it('never shows more than nine places, whatever the archive', () => {
    for (const last of [1, 9, 10, 250, 10_000]) {
      for (const current of [1, 2, 5, Math.ceil(last / 2), last - 1, last].filter((n) => n >= 1 && n <= last)) {
        const links = pageLinks(current, last);
        expect(links.length, `${current} of ${last}`).toBeLessThanOrEqual(9);
        const pages = links.flatMap((link) => ('page' in link ? [link.page] : []));
        expect(pages, `${current} of ${last}`).toEqual([...new Set(pages)].sort((a, b) => a - b));
        expect(pages).toContain(current);
      }
    }
  });
});
