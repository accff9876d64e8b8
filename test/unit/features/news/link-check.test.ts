import { describe, expect, it } from 'vitest';
import { deadSiteLinks } from '../../../../src/features/news/link-check.ts';

const SITE = 'https://meridian.example';
const PAGES = new Set(['/stats', '/contact/', '/sellers.json']);

describe('deadSiteLinks', () => {
  it('names each article whose link leads to no page of the site, by its file', () => {
    const problems = deadSiteLinks(
      [
        { id: 'dead', link: `${SITE}/nope-page` },
        { id: 'fine', link: `${SITE}/stats` },
        { id: 'elsewhere', link: 'https://github.com/InteractiveAdvertisingBureau/openrtb' },
        { id: 'none', link: null },
        { id: 'dead-too', link: `${SITE}/contact/old?x=1#top` },
      ],
      SITE,
      (path) => PAGES.has(path),
    );
    expect(problems.map((p) => `${p.file}: ${p.message}`)).toEqual([
      'content/news/dead.md: link "/nope-page" leads to no page of this site: no page, file or route answers /nope-page',
      'content/news/dead-too.md: link "/contact/old?x=1#top" leads to no page of this site: no page, file or route answers /contact/old',
    ]);
  });
});
