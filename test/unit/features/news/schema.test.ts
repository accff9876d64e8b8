import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ARTICLE_ID, NewsArticle, NewsFrontmatter, articleIdProblem, createdAtProblem, suggestField } from '../../../../src/features/news/schema.ts';
import { frontmatterOf, readArticles } from '../../../helpers/articles.ts';

/** Each issue as "path: message", the way Astro prints them under the file name. */
function problems(input: unknown): string[] {
  const result = NewsFrontmatter.safeParse(input);
  if (result.success) return [];
  return result.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
}

const valid = { heading: 'Quarterly report', createdAt: '2026-01-05T09:30:00+01:00' };

describe('the sample articles in content/news', () => {
  const articles = readArticles();

  it('include at least eight articles, a draft, some with images and some with links', () => {
    expect(articles.length).toBeGreaterThanOrEqual(8);
    expect(articles.filter((a) => a.data['draft'] === true).length).toBeGreaterThanOrEqual(1);
    expect(articles.filter((a) => a.data['draft'] !== true).length).toBeGreaterThanOrEqual(8);
    expect(articles.some((a) => typeof a.data['imageUrl'] === 'string')).toBe(true);
    expect(articles.some((a) => typeof a.data['link'] === 'string')).toBe(true);
  });

  it.each(readArticles().map((a) => [a.id, a.data] as const))('accepts %s', (id, data) => {
    expect(ARTICLE_ID.test(id)).toBe(true);
    expect(articleIdProblem(id)).toBeNull();
    expect(problems(data)).toEqual([]);
  });

  it('point every local imageUrl at a file in public/', () => {
    for (const { data } of articles) {
      const url = data['imageUrl'];
      if (typeof url === 'string' && url.startsWith('/')) {
        expect(existsSync(new URL(`../../../../public${url}`, import.meta.url)), url).toBe(true);
      }
    }
  });
});

describe('NewsFrontmatter', () => {
  it('fills draft with false and leaves optional fields out', () => {
    expect(NewsFrontmatter.parse(valid)).toEqual({ ...valid, draft: false });
  });

  it('accepts null for the optional fields', () => {
    expect(problems({ ...valid, subheading: null, imageUrl: null, link: null })).toEqual([]);
  });

  it('accepts a site path or an https URL as link and imageUrl', () => {
    const image = { imageAlt: 'A chart', imageWidth: 1200, imageHeight: 630 };
    expect(problems({ ...valid, link: '/stats', imageUrl: '/images/news/x.svg', ...image })).toEqual([]);
    expect(problems({ ...valid, link: 'https://iabtechlab.com/sellers-json/', imageUrl: 'https://cdn.example.com/x.png', ...image })).toEqual([]);
  });

  it('refuses a missing heading and an empty one', () => {
    expect(problems({ createdAt: valid.createdAt })).toMatchInlineSnapshot(`
      [
        "heading: heading is required",
      ]
    `);
    expect(problems({ ...valid, heading: '   ' })).toMatchInlineSnapshot(`
      [
        "heading: heading must not be empty",
      ]
    `);
  });

  it('refuses a heading YAML read as a number', () => {
    expect(problems({ ...valid, heading: 2026 })).toMatchInlineSnapshot(`
      [
        "heading: heading must be text (put it in quotes if it looks like a date or a number), got 2026",
      ]
    `);
  });

  it('refuses a heading longer than 120 characters', () => {
    expect(problems({ ...valid, heading: 'x'.repeat(121) })).toMatchInlineSnapshot(`
      [
        "heading: heading must be at most 120 characters",
      ]
    `);
  });

  it('refuses a missing createdAt', () => {
    expect(problems({ heading: 'Hi' })).toMatchInlineSnapshot(`
      [
        "createdAt: createdAt is required: the publication time with its timezone, e.g. 2026-01-05T09:30:00+01:00",
      ]
    `);
  });

  it('refuses a createdAt without a time, without a timezone, or not a date at all', () => {
    expect(problems({ ...valid, createdAt: '2026-01-05' })).toMatchInlineSnapshot(`
      [
        "createdAt: createdAt "2026-01-05" is a date without a time: add the time and timezone, e.g. 2026-01-05T09:30:00+01:00",
      ]
    `);
    expect(problems({ ...valid, createdAt: '2026-01-05T10:00:00' })).toMatchInlineSnapshot(`
      [
        "createdAt: createdAt "2026-01-05T10:00:00" has no timezone: add Z (UTC) or an offset such as +01:00, e.g. 2026-01-05T09:30:00+01:00",
      ]
    `);
    expect(problems({ ...valid, createdAt: 'next Tuesday' })).toMatchInlineSnapshot(`
      [
        "createdAt: createdAt "next Tuesday" is not an ISO 8601 date-time: write date, time with seconds and timezone, e.g. 2026-01-05T09:30:00+01:00",
      ]
    `);
  });

  it('refuses an impossible calendar date', () => {
    expect(problems({ ...valid, createdAt: '2026-02-30T10:00:00Z' })).toMatchInlineSnapshot(`
      [
        "createdAt: createdAt "2026-02-30T10:00:00Z" is not a real date and time (check the month, day and hour), e.g. 2026-01-05T09:30:00+01:00",
      ]
    `);
  });

  it('refuses a Date object, which is what an unquoted YAML timestamp becomes before restoring', () => {
    expect(problems({ ...valid, createdAt: new Date('2026-01-05T10:00:00Z') })).toMatchInlineSnapshot(`
      [
        "createdAt: createdAt must be a date-time such as 2026-01-05T09:30:00+01:00, got 2026-01-05T10:00:00.000Z",
      ]
    `);
  });

  it('refuses an image without alt text and size', () => {
    expect(problems({ ...valid, imageUrl: '/images/news/x.svg' })).toMatchInlineSnapshot(`
      [
        "imageAlt: imageAlt is required when imageUrl is set: give a description of the image ("" if purely decorative)",
        "imageWidth: imageWidth is required when imageUrl is set: give its size in pixels",
        "imageHeight: imageHeight is required when imageUrl is set: give its size in pixels",
      ]
    `);
  });

  it('refuses image details without an image', () => {
    expect(problems({ ...valid, imageAlt: 'A chart', imageWidth: 10 })).toMatchInlineSnapshot(`
      [
        "imageAlt: imageAlt is set but imageUrl is not: add imageUrl or remove imageAlt",
        "imageWidth: imageWidth is set but imageUrl is not: add imageUrl or remove imageWidth",
      ]
    `);
  });

  it('refuses a size that is not a whole positive number of pixels', () => {
    expect(problems({ ...valid, imageUrl: '/x.svg', imageAlt: '', imageWidth: 12.5, imageHeight: 0 })).toMatchInlineSnapshot(`
      [
        "imageWidth: imageWidth must be a whole number of pixels",
        "imageHeight: imageHeight must be greater than 0",
      ]
    `);
  });

  it('refuses a link that is neither an http(s) URL nor a site path', () => {
    expect(problems({ ...valid, link: 'ftp://example.com/file' })).toMatchInlineSnapshot(`
      [
        "link: link "ftp://example.com/file" must be an absolute http(s) URL or a path on this site starting with "/", e.g. https://example.com/report",
      ]
    `);
    expect(problems({ ...valid, link: '//cdn.example.com/x' })).toMatchInlineSnapshot(`
      [
        "link: link "//cdn.example.com/x" must be an absolute http(s) URL or a path on this site starting with "/", e.g. https://example.com/report",
      ]
    `);
    expect(problems({ ...valid, link: 'example.com' })).toMatchInlineSnapshot(`
      [
        "link: link "example.com" must be an absolute http(s) URL or a path on this site starting with "/", e.g. https://example.com/report",
      ]
    `);
  });

  it('refuses a draft flag that is not a boolean', () => {
    expect(problems({ ...valid, draft: 'yes' })).toMatchInlineSnapshot(`
      [
        "draft: draft must be true or false, got "yes"",
      ]
    `);
  });

  it('refuses unknown fields and suggests the field that was meant', () => {
    expect(problems({ ...valid, subHeading: 'typo', author: 'Ann' })).toMatchInlineSnapshot(`
      [
        "subHeading: unknown field "subHeading": did you mean "subheading"?",
        "author: unknown field "author": the fields are heading, subheading, imageUrl, imageAlt, imageWidth, imageHeight, link, createdAt, draft",
      ]
    `);
  });

  it('suggests the field a typo stands for, not only a slip of case', () => {
    expect(problems({ ...valid, subheadng: 'typo', hedaing: 'swap', Draft: true })).toMatchInlineSnapshot(`
      [
        "subheadng: unknown field "subheadng": did you mean "subheading"?",
        "hedaing: unknown field "hedaing": did you mean "heading"?",
        "Draft: unknown field "Draft": did you mean "draft"?",
      ]
    `);
  });

  it.each([
    ['subheadng', 'subheading'], ['Subheding', 'subheading'],
    ['created', 'createdAt'], ['created_at', 'createdAt'],
    ['imageWidht', 'imageWidth'], ['imgUrl', 'imageUrl'],
    ['lnk', 'link'], ['drafts', 'draft'],
  ])('suggests for %j the field %j', (key, field) => {
    expect(suggestField(key)).toBe(field);
  });

  it.each(['author', 'tags', 'title', 'url', 'date', 'image', 'alt', 'id'])('suggests nothing for %j, which is no near miss of a field', (key) => {
    expect(suggestField(key)).toBeUndefined();
  });

  it('reports a misspelt field together with the missing field it stands for', () => {
    expect(problems({ Heading: 'Hi', createdAt: valid.createdAt })).toMatchInlineSnapshot(`
      [
        "heading: heading is required",
        "Heading: unknown field "Heading": did you mean "heading"?",
      ]
    `);
  });

  it('returns only the fields that were written, plus the draft default', () => {
    const result = NewsFrontmatter.safeParse({ ...valid, subheading: undefined });
    expect(result.success && Object.keys(result.data).sort()).toEqual(['createdAt', 'draft', 'heading']);
  });
});

describe('createdAt as written in YAML', () => {
  it('keeps an unquoted timestamp without a zone from being read as UTC', () => {
    const data = frontmatterOf('---\nheading: Hi\ncreatedAt: 2026-01-05T10:00:00\n---\nBody\n');
    expect(data['createdAt']).toBe('2026-01-05T10:00:00');
    expect(problems(data)).toMatchInlineSnapshot(`
      [
        "createdAt: createdAt "2026-01-05T10:00:00" has no timezone: add Z (UTC) or an offset such as +01:00, e.g. 2026-01-05T09:30:00+01:00",
      ]
    `);
  });

  it('keeps an unquoted date from being read as midnight UTC', () => {
    const data = frontmatterOf('---\nheading: Hi\ncreatedAt: 2026-01-05\n---\n');
    expect(problems(data)).toMatchInlineSnapshot(`
      [
        "createdAt: createdAt "2026-01-05" is a date without a time: add the time and timezone, e.g. 2026-01-05T09:30:00+01:00",
      ]
    `);
  });

  it('accepts an unquoted or quoted timestamp with an offset', () => {
    expect(problems(frontmatterOf('---\nheading: Hi\ncreatedAt: 2026-01-05T10:00:00+01:00\n---\n'))).toEqual([]);
    expect(problems(frontmatterOf('---\nheading: Hi\ncreatedAt: "2026-01-05T10:00:00Z" # UTC\n---\n'))).toEqual([]);
  });
});

describe('createdAtProblem', () => {
  it.each(['2026-01-05T09:30:00Z', '2026-01-05T09:30:00+01:00', '2026-01-05T09:30:00.250-05:30', '2028-02-29T00:00:00Z'])('accepts %s', (value) => {
    expect(createdAtProblem(value)).toBeNull();
  });

  it.each(['2026-01-05T09:30+01:00', '2026-13-01T00:00:00Z', '2027-02-29T00:00:00Z', '2026-01-05T24:00:00Z', '2026-01-05T10:00:00+25:00', '2026-01-05 10:00:00+01:00'])(
    'refuses %s',
    (value) => {
      expect(createdAtProblem(value)).toEqual(expect.stringContaining(`createdAt "${value}"`));
    },
  );
});

describe('NewsArticle', () => {
  it('is the resource of docs/interface.md section 2: id, heading, subheading, imageUrl, link, createdAt', () => {
    expect(Object.keys(NewsArticle.shape)).toEqual(['id', 'heading', 'subheading', 'imageUrl', 'link', 'createdAt']);
  });

  it('refuses a relative imageUrl: API clients cannot resolve it', () => {
    const result = NewsArticle.safeParse({ id: 'a', heading: 'A', imageUrl: '/x.svg', createdAt: '2026-01-05T09:30:00Z' });
    expect(result.success).toBe(false);
  });
});

describe('one build reports every problem of a file', () => {
  it('lists type errors, unknown fields and image rules together', () => {
    expect(problems({ Heading: 'typo', imageUrl: 'https://cdn.example.com/x.png', imageWidth: 1.5, createdAt: '2026-01-05' })).toMatchInlineSnapshot(`
      [
        "heading: heading is required",
        "imageWidth: imageWidth must be a whole number of pixels",
        "createdAt: createdAt "2026-01-05" is a date without a time: add the time and timezone, e.g. 2026-01-05T09:30:00+01:00",
        "Heading: unknown field "Heading": did you mean "heading"?",
        "imageAlt: imageAlt is required when imageUrl is set: give a description of the image ("" if purely decorative)",
        "imageHeight: imageHeight is required when imageUrl is set: give its size in pixels",
      ]
    `);
  });
});

describe('articleIdProblem', () => {
  it('accepts lower-case words joined by hyphens, all-digit ids and ids that merely start with "page"', () => {
    for (const id of ['q1-report', '2026', '3', 'page-two', 'pages', 'front-page']) expect(articleIdProblem(id), id).toBeNull();
  });

  it('refuses file names that are not an id', () => {
    for (const id of ['Q1-report', 'q1_report', '-q1', 'q1--report', '']) {
      expect(articleIdProblem(id), id).toBe('the file name must be lower-case letters and digits joined by hyphens, e.g. q1-transparency-report.md');
    }
  });

  it('refuses "page", the folder of the news list\'s later pages', () => {
    expect(articleIdProblem('page')).toMatchInlineSnapshot(`""page" cannot be an article id: /news/page/ holds the pages of the news list (/news/page/2/)"`);
  });
});
