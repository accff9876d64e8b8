import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runNewsNew } from '../../../../jobs/cli/news-new.ts';
import { formatWithOffset, newArticle, slugify } from '../../../../src/features/news/new-article.ts';
import { NewsFrontmatter } from '../../../../src/features/news/schema.ts';
import { frontmatterOf } from '../../../helpers/articles.ts';

const NOW = new Date('2026-01-05T08:30:15.999Z');

describe('slugify', () => {
  it.each([
    ['Q1 2026: Transparency Report', 'q1-2026-transparency-report'], ['  Café & Crème — “Brûlée”!  ', 'cafe-creme-brulee'],
    ["What's new in sellers.json?", 'whats-new-in-sellers-json'], ['Straße', 'strasse'],
    ['GRÜSSE AUS DER STRAẞE', 'gruesse-aus-der-strasse'], ['Änderungen für Köln: Größe', 'aenderungen-fuer-koeln-groesse'],
    ['Ørsted & Łódź, Þórr', 'orsted-lodz-thorr'], ['Épée naïve à São Paulo', 'epee-naive-a-sao-paulo'],
    ['ﬁnal ① Ｑ１', 'final-1-q1'],
  ])('turns %j into %j', (heading, slug) => {
    expect(slugify(heading)).toBe(slug);
  });

  it('transliterates an umlaut typed as a base letter and a combining mark like the precomposed one', () => {
    expect(slugify('Gru\u0308ße')).toBe('gruesse');
  });

  it('drops letters that have no ASCII form', () => {
    expect(slugify('東京 launch')).toBe('launch');
    expect(slugify('東京')).toBe('');
  });

  it('cuts long headings at a word boundary', () => {
    const slug = slugify('An unusually long heading that goes on and on about the state of programmatic advertising in 2026');
    expect(slug.length).toBeLessThanOrEqual(60);
    expect(slug).toBe('an-unusually-long-heading-that-goes-on-and-on-about-the');
  });
});

describe('formatWithOffset', () => {
  it('writes local time with the offset, to the second', () => {
    expect(formatWithOffset(NOW, 60)).toBe('2026-01-05T09:30:15+01:00');
    expect(formatWithOffset(NOW, 0)).toBe('2026-01-05T08:30:15+00:00');
    expect(formatWithOffset(NOW, -330)).toBe('2026-01-05T03:00:15-05:30');
    expect(formatWithOffset(NOW, -540)).toBe('2026-01-04T23:30:15-09:00');
  });
});

describe('newArticle', () => {
  it('writes a draft whose frontmatter the collection schema accepts', () => {
    const article = newArticle('Q1 2026: "Transparency" report #1', NOW, 60);
    expect(article.slug).toBe('q1-2026-transparency-report-1');
    expect(article.fileName).toBe('q1-2026-transparency-report-1.md');
    const data = NewsFrontmatter.parse(frontmatterOf(article.contents));
    expect(data).toEqual({ heading: 'Q1 2026: "Transparency" report #1', createdAt: '2026-01-05T09:30:15+01:00', draft: true });
  });

  it('starts with this frontmatter', () => {
    expect(newArticle('New region in Singapore', NOW, 480).contents).toMatchInlineSnapshot(`
      "---
      heading: "New region in Singapore"
      # subheading: One sentence shown under the heading and in the feed.
      # link: https://example.com/related-page
      # imageUrl: /images/news/your-image.svg
      # imageAlt: What the image shows
      # imageWidth: 1200
      # imageHeight: 630
      createdAt: 2026-01-05T16:30:15+08:00
      # Set draft to false (or delete the line) to publish with the next deploy.
      draft: true
      ---

      Write the article here, in Markdown.
      "
    `);
  });

  it('refuses an empty heading, one without letters or digits, and one that is too long', () => {
    expect(() => newArticle('   ', NOW, 0)).toThrowErrorMatchingInlineSnapshot(`[NewArticleError: give the heading of the article, e.g. npm run news:new -- "Q1 2026 transparency report"]`);
    expect(() => newArticle('!!!', NOW, 0)).toThrowErrorMatchingInlineSnapshot(`[NewArticleError: cannot make a file name from "!!!": use a heading with letters or digits]`);
    expect(() => newArticle('x'.repeat(121), NOW, 0)).toThrowErrorMatchingInlineSnapshot(`[NewArticleError: the heading is 121 characters; keep it to 120 (put the rest in the subheading)]`);
  });

  it('refuses a heading whose file name would be the folder of the news list\'s pages', () => {
    expect(() => newArticle('Page', NOW, 0)).toThrowErrorMatchingInlineSnapshot(`[NewArticleError: "page" cannot be an article id: /news/page/ holds the pages of the news list (/news/page/2/); use a longer heading]`);
    expect(newArticle('Page two', NOW, 0).slug).toBe('page-two');
  });
});

describe('npm run news:new', () => {
  let dir: string;
  let out: string[];
  let err: string[];
  const deps = () => ({ dir, now: NOW, offsetMinutes: 60, out: (l: string) => out.push(l), err: (l: string) => err.push(l) });

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'news-new-'));
    out = [];
    err = [];
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes content/news/<slug>.md and prints its path', async () => {
    expect(await runNewsNew(['Singapore', 'region'], deps())).toBe(0);
    const path = join(dir, 'singapore-region.md');
    expect(out).toEqual([path]);
    expect(err).toEqual([]);
    expect(await readFile(path, 'utf8')).toBe(newArticle('Singapore region', NOW, 60).contents);
  });

  it('refuses to overwrite an existing article, exits 73 (EX_CANTCREAT) and leaves the file as it was', async () => {
    const path = join(dir, 'singapore-region.md');
    await writeFile(path, 'my work');
    expect(await runNewsNew(['Singapore region'], deps())).toBe(73);
    expect(await readFile(path, 'utf8')).toBe('my work');
    expect(out).toEqual([]);
    expect(err).toEqual([`news:new: ${path} already exists; not overwritten. Choose another heading, or edit that file.`]);
  });

  it('exits 64 (EX_USAGE) with a usage message when no heading is given, writing nothing', async () => {
    expect(await runNewsNew([], deps())).toBe(64);
    expect(err).toMatchInlineSnapshot(`
      [
        "news:new: give the heading of the article, e.g. npm run news:new -- "Q1 2026 transparency report"",
      ]
    `);
    expect(await readdir(dir)).toEqual([]);
  });

  it('--at writes a scheduled article: that createdAt, not a draft', async () => {
    expect(await runNewsNew(['Walrus', 'region'], { ...deps(), at: '2099-01-05T09:30:00+01:00' })).toBe(0);
    const text = await readFile(join(dir, 'walrus-region.md'), 'utf8');
    expect(text).toContain('\ncreatedAt: 2099-01-05T09:30:00+01:00\n');
    expect(text).toContain('\ndraft: false\n');
  });

  it('--at refuses a time without a timezone or one already past, writing nothing', async () => {
    expect(await runNewsNew(['Walrus region'], { ...deps(), at: '2099-01-05T09:30:00' })).toBe(64);
    expect(await runNewsNew(['Walrus region'], { ...deps(), at: '2001-01-05T09:30:00Z' })).toBe(64);
    expect(err).toMatchInlineSnapshot(`
      [
        "news:new: --at: "2099-01-05T09:30:00" has no timezone: add Z (UTC) or an offset such as +01:00, e.g. 2026-01-05T09:30:00+01:00",
        "news:new: --at 2001-01-05T09:30:00Z is not in the future; leave out --at for a draft stamped with the current time",
      ]
    `);
    expect(await readdir(dir)).toEqual([]);
  });
});
