import { describe, expect, it } from 'vitest';
import { type NewsEntry, toNewsList, toUtcDateTime } from '../../../../src/features/news/news-list.ts';
import { NewsArticle, NewsFrontmatter } from '../../../../src/features/news/schema.ts';
import { readArticles } from '../../../helpers/articles.ts';

const SITE = 'https://www.meridian.example';

function entry(id: string, createdAt: string, extra: Partial<NewsEntry['data']> = {}): NewsEntry {
  return { id, data: NewsFrontmatter.parse({ heading: `Heading ${id}`, createdAt, ...extra }) };
}

describe('toNewsList', () => {
  it('orders articles newest first by instant, whatever their offsets', () => {
    const list = toNewsList(
      [
        entry('tokyo-morning', '2026-03-01T08:00:00+09:00'), // 2026-02-28T23:00Z
        entry('london-night', '2026-02-28T23:30:00Z'),
        entry('new-york-evening', '2026-02-28T17:00:00-05:00'), // 22:00Z
      ],
      SITE,
    );
    expect(list.map((a) => a.id)).toEqual(['london-night', 'tokyo-morning', 'new-york-evening']);
  });

  it('orders articles published at the same instant by id, so the output is stable', () => {
    const same = '2026-01-05T10:00:00Z';
    const ids = toNewsList([entry('b', same), entry('c', same), entry('a', same)], SITE).map((a) => a.id);
    expect(ids).toEqual(['a', 'b', 'c']);
  });

  it('leaves drafts out', () => {
    const list = toNewsList([entry('published', '2026-01-05T10:00:00Z'), entry('draft', '2026-02-05T10:00:00Z', { draft: true })], SITE);
    expect(list.map((a) => a.id)).toEqual(['published']);
  });

  it('returns the metadata of the spec and nothing else, with null for what an article lacks', () => {
    const [article] = toNewsList([entry('plain', '2026-01-05T10:00:00+01:00')], SITE);
    expect(article).toEqual({ id: 'plain', heading: 'Heading plain', subheading: null, imageUrl: null, link: null, createdAt: '2026-01-05T09:00:00Z' });
  });

  it('makes site paths absolute against the site URL and keeps absolute URLs', () => {
    const [article] = toNewsList(
      [
        entry('with-image', '2026-01-05T10:00:00Z', {
          subheading: 'Sub',
          imageUrl: '/images/news/x.svg',
          imageAlt: 'X',
          imageWidth: 10,
          imageHeight: 10,
          link: 'https://iabtechlab.com/sellers-json/',
        }),
      ],
      SITE,
    );
    expect(article?.imageUrl).toBe('https://www.meridian.example/images/news/x.svg');
    expect(article?.link).toBe('https://iabtechlab.com/sellers-json/');
    expect(article?.subheading).toBe('Sub');
  });

  it('turns the sample articles into valid NewsArticles, newest first, without the draft', () => {
    const entries = readArticles().map(({ id, data }) => ({ id, data: NewsFrontmatter.parse(data) }));
    const list = toNewsList(entries, SITE);
    expect(list.length).toBe(entries.filter((e) => !e.data.draft).length);
    for (const article of list) expect(NewsArticle.safeParse(article).success).toBe(true);
    const times = list.map((a) => Date.parse(a.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(list.map((a) => a.id)).not.toContain('transparency-report-h2-2026');
  });
});

describe('toUtcDateTime', () => {
  it('writes the instant in UTC without a zero fraction', () => {
    expect(toUtcDateTime('2026-01-05T09:30:00+01:00')).toBe('2026-01-05T08:30:00Z');
    expect(toUtcDateTime('2026-01-05T09:30:00.250-05:30')).toBe('2026-01-05T15:00:00.250Z');
  });
});
