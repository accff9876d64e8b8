import { describe, expect, it } from 'vitest';
import { PAGE_TITLES } from '../../../../src/components/site.ts';
import { labelFromPath, relatedLink, sitePathKey } from '../../../../src/features/news/related-link.ts';

const headings = new Map([['/news/q1-report/', 'Our first quarter in numbers']]);
const titleOf = (key: string) => PAGE_TITLES[key] ?? headings.get(key);

describe('relatedLink', () => {
  it.each([
    ['/contact', 'Contact'],
    ['/contact/', 'Contact'],
    ['/stats', 'Daily statistics'],
    ['/stats/?startDate=2026-01-01&endDate=2026-01-31', 'Daily statistics'],
    ['/docs/api#tag/news', 'API reference'],
    ['/sellers.json', 'sellers.json'],
    ['/news/q1-report', 'Our first quarter in numbers'],
  ])('names the site page %j by its title, %j', (link, title) => {
    expect(relatedLink(link, titleOf)).toEqual({ kind: 'internal', href: link, title });
  });

  it('names a site page nobody titled from its path, never the raw path', () => {
    expect(relatedLink('/docs/rate-limits/', titleOf)).toEqual({ kind: 'internal', href: '/docs/rate-limits/', title: 'Rate limits' });
  });

  it('names an external page by its host', () => {
    expect(relatedLink('https://iabtechlab.com/ads-txt/', titleOf)).toEqual({ kind: 'external', href: 'https://iabtechlab.com/ads-txt/', host: 'iabtechlab.com' });
  });
});

describe('sitePathKey', () => {
  it('ends a page path in "/" and leaves a file path as it is', () => {
    expect([sitePathKey('/contact'), sitePathKey('/news/x/'), sitePathKey('/rss.xml'), sitePathKey('/stats?x=1'), sitePathKey('/')]).toEqual([
      '/contact/',
      '/news/x/',
      '/rss.xml',
      '/stats/',
      '/',
    ]);
  });
});

describe('labelFromPath', () => {
  it('turns the last segment into words, decoding escapes', () => {
    expect([labelFromPath('/docs/supply_chain-guide'), labelFromPath('/caf%C3%A9-notes/'), labelFromPath('/%E0%A4%A'), labelFromPath('/')]).toEqual([
      'Supply chain guide',
      'Café notes',
      '%E0%A4%A',
      'Home page',
    ]);
  });
});
