import { describe, expect, it } from 'vitest';
import { sitemapEdition } from '../../../../src/features/news/sitemap-edition.ts';

const SITE = 'https://example.com';
const url = (path: string, lastmod?: string) => `<url><loc>${SITE}${path}</loc>${lastmod ? `<lastmod>${lastmod}</lastmod>` : ''}</url>`;
const XML = `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${[url('/'), url('/news/', '2099-01-01T00:00:00Z'), url('/news/a/', '2026-01-01T00:00:00Z'), url('/news/later/', '2099-01-01T00:00:00Z')].join('')}</urlset>`;

describe('the sitemap of an edition', () => {
  it('leaves out the articles not yet published and dates the list by the newest published', () => {
    const xml = sitemapEdition(XML, { hidden: new Set(['later']), published: 1, newest: Date.parse('2026-01-01T00:00:00Z') }, SITE);
    expect(xml).not.toContain('/news/later/');
    expect(xml).toContain(url('/news/', '2026-01-01T00:00:00.000Z'));
    expect(xml).toContain(url('/news/a/', '2026-01-01T00:00:00Z'));
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?><urlset')).toBe(true);
    expect(xml.endsWith('</urlset>')).toBe(true);
  });

  it('lists as many pages of the news list as the edition fills', () => {
    const xml = sitemapEdition(XML, { hidden: new Set(), published: 41, newest: Date.parse('2099-01-01T00:00:00Z') }, SITE);
    expect(xml).toContain(url('/news/page/3/', '2099-01-01T00:00:00.000Z'));
    expect(xml).not.toContain('/news/page/4/');
    expect(xml).toContain('/news/later/');
  });
});
