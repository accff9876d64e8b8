import { describe, expect, it } from 'vitest';
import { OG_IMAGE_ARTICLES, articleLastmods, articleMeta, newsArticleJsonLd, ownOgImageIds, serializeJsonLd } from '../../../../src/features/news/article-meta.ts';
import { clip, ogImageTree, renderOgImage } from '../../../../src/features/news/og-image.ts';
import { NEWS_PAGE_SIZE } from '../../../../src/features/news/pagination.ts';
import type { NewsFrontmatter } from '../../../../src/features/news/schema.ts';

const SITE = 'https://www.meridian.example';
const entry = (id: string, data: Partial<NewsFrontmatter>) => ({
  id,
  data: { heading: 'A heading', createdAt: '2026-01-05T09:30:00+01:00', draft: false, ...data } as NewsFrontmatter,
});

describe('serializeJsonLd', () => {
  it('cannot end the script element or open a comment, and parses back to the same value', () => {
    const value = { headline: 'Ends </script><script>alert(1)</script> <!-- & \u2028 here' };
    const text = serializeJsonLd(value);
    expect(text).not.toMatch(/[<>&\u2028]/);
    expect(JSON.parse(text)).toEqual(value);
  });
});

describe('newsArticleJsonLd and articleMeta', () => {
  it('describes the article with absolute URLs, UTC dates and the organisation', () => {
    const article = entry('q1-report', { heading: 'Q1', subheading: 'Numbers', imageUrl: '/images/news/q1.svg' });
    expect(articleMeta(article, SITE)).toEqual({
      url: `${SITE}/news/q1-report/`,
      image: { url: `${SITE}/news/q1-report/og.png`, width: 1200, height: 630, type: 'image/png', alt: 'Q1' },
      publishedTime: '2026-01-05T08:30:00Z',
    });
    expect(newsArticleJsonLd(article, SITE, 'Meridian')).toEqual({
      '@context': 'https://schema.org',
      '@type': 'NewsArticle',
      headline: 'Q1',
      description: 'Numbers',
      image: [`${SITE}/news/q1-report/og.png`, `${SITE}/images/news/q1.svg`],
      datePublished: '2026-01-05T08:30:00Z',
      author: [{ '@type': 'Organization', name: 'Meridian', url: `${SITE}/` }],
      publisher: { '@type': 'Organization', name: 'Meridian', url: `${SITE}/` },
      mainEntityOfPage: { '@type': 'WebPage', '@id': `${SITE}/news/q1-report/` },
    });
  });
});

describe('ownOgImageIds', () => {
  it('gives the newest OG_IMAGE_ARTICLES their own picture, the others the news section picture', () => {
    const entries = Array.from({ length: OG_IMAGE_ARTICLES + 2 }, (_, i) => entry(`a-${i}`, {}));
    const own = ownOgImageIds(entries);
    expect(own.size).toBe(OG_IMAGE_ARTICLES);
    expect(own.has('a-0')).toBe(true);
    expect(own.has(`a-${OG_IMAGE_ARTICLES}`)).toBe(false);
    expect(articleMeta(entries[OG_IMAGE_ARTICLES]!, SITE, false).image.url).toBe(`${SITE}/news/og.png`);
    expect(newsArticleJsonLd(entries[OG_IMAGE_ARTICLES]!, SITE, 'M', false)['image']).toEqual([`${SITE}/news/og.png`]);
  });
});

describe('articleLastmods', () => {
  it('dates each published article and /news/ by the newest, leaving drafts and unreadable dates out', () => {
    const file = (createdAt: string, extra = '') => `---\nheading: x\ncreatedAt: ${createdAt}\n${extra}---\nBody\n`;
    const dates = articleLastmods([
      { id: 'old', text: file('2026-01-05T09:30:00+01:00') },
      { id: 'new', text: file('"2026-03-01T12:00:00Z"') },
      { id: 'draft', text: file('2026-06-01T12:00:00Z', 'draft: true\n') },
      { id: 'draft-capital', text: file('2026-07-01T12:00:00Z', 'draft: True\n') },
      { id: 'broken', text: file('soon') },
    ]);
    expect(Object.fromEntries(dates)).toEqual({
      '/news/old/': '2026-01-05T08:30:00Z',
      '/news/new/': '2026-03-01T12:00:00Z',
      '/news/': '2026-03-01T12:00:00Z',
    });
  });

  it('dates every page of the news list by the newest article, since each new one shifts them all', () => {
    const files = Array.from({ length: NEWS_PAGE_SIZE * 2 + 1 }, (_, i) => ({
      id: `a-${i}`,
      text: `---\nheading: x\ncreatedAt: 2026-01-${String(1 + (i % 28)).padStart(2, '0')}T00:00:00Z\n---\n`,
    }));
    const dates = articleLastmods([...files, { id: 'draft', text: '---\nheading: x\ncreatedAt: 2026-02-01T00:00:00Z\ndraft: true\n---\n' }]);
    const lists = [...dates].filter(([path]) => !/^\/news\/a-\d+\/$/.test(path));
    expect(lists).toEqual([
      ['/news/', '2026-01-28T00:00:00Z'],
      ['/news/page/2/', '2026-01-28T00:00:00Z'],
      ['/news/page/3/', '2026-01-28T00:00:00Z'],
    ]);
  });

  it('dates no list page when there is no published article', () => {
    expect(articleLastmods([]).size).toBe(0);
  });
});

describe('the og:image', () => {
  it('clips long text at a word boundary', () => {
    expect(clip('short', 10)).toBe('short');
    expect(clip('one two three four five', 12)).toBe('one two…');
  });

  it('leaves the subheading out when there is none', () => {
    const tree = ogImageTree({ heading: 'H', siteName: 'S', footer: 'F' });
    expect(JSON.stringify(tree)).not.toContain('"fontSize":32');
    expect(JSON.stringify(ogImageTree({ heading: 'H', subheading: 'Sub', siteName: 'S', footer: 'F' }))).toContain('"Sub"');
  });

  it('renders a 1200x630 PNG', async () => {
    const png = Buffer.from(await renderOgImage({ heading: 'Check your ads.txt lines', subheading: 'A subheading', siteName: 'Meridian', footer: '9 September 2026' }));
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1200, 630]);
  });
});
