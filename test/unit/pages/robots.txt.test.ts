import { describe, expect, it } from 'vitest';
import { robotsTxt } from '../../../src/pages/robots.txt.ts';

describe('robots.txt', () => {
  it('allows the site, keeps crawlers off the APIs and names the sitemap on the site origin', () => {
    expect(robotsTxt(new URL('https://stats.example.org'))).toMatchInlineSnapshot(`
      "User-agent: *
      Allow: /
      Disallow: /api/

      Sitemap: https://stats.example.org/sitemap-index.xml
      "
    `);
  });

  it('keeps a base path of the site in the sitemap URL', () => {
    expect(robotsTxt(new URL('https://example.org/exchange/'))).toContain('Sitemap: https://example.org/exchange/sitemap-index.xml\n');
  });

  it('leaves sellers.json crawlable (it is not under /api/)', () => {
    const disallowed = robotsTxt(undefined)
      .split('\n')
      .filter((line) => line.startsWith('Disallow:'))
      .map((line) => line.slice('Disallow:'.length).trim());
    expect(disallowed).toEqual(['/api/']);
    expect(disallowed.some((prefix) => '/sellers.json'.startsWith(prefix))).toBe(false);
  });

  it('has no Sitemap line when no site is configured', () => {
    expect(robotsTxt(undefined)).not.toContain('Sitemap');
  });
});
