import { describe, expect, it } from 'vitest';
import { linkTarget, sourcesFrom } from '../../../../src/features/chat/widget-dom.client.ts';

describe('the widget', () => {
  it('resolves the sources of a reply against the URL it came from, keeping only http(s) pages', () => {
    const link = [
      `</news/a>; rel="via"; title*=UTF-8''Article%20A`,
      `<https://partner.test/page>; rel="via"; title*=UTF-8''Elsewhere`,
      `<javascript:alert(1)>; rel="via"; title*=UTF-8''Script`,
      `</style.css>; rel="preload"`,
    ].join(', ');
    const response = new Response(null, { headers: { link } });
    expect(sourcesFrom(response, 'https://meridian.test/api/chat')).toEqual([
      { url: 'https://meridian.test/news/a', title: 'Article A' },
      { url: 'https://partner.test/page', title: 'Elsewhere' },
    ]);
    expect(sourcesFrom(new Response(null), 'https://meridian.test/api/chat')).toEqual([]);
  });

  it('links only http(s) URLs without userinfo, and site paths', () => {
    const base = 'https://meridian.test/news/';
    expect(linkTarget('/contact', base)).toBe('https://meridian.test/contact');
    expect(linkTarget('https://partner.test/page', base)).toBe('https://partner.test/page');
    for (const href of ['http://site@evil.example/', 'https://meridian.test:pw@evil.example/x', 'http://@evil.example/', 'javascript:alert(1)', 'data:text/html,<p>x', 'mailto:ada@example.com']) {
      expect(linkTarget(href, base), href).toBeUndefined();
    }
  });

  it('drops a source with userinfo from a Link header', () => {
    const link = `<http://meridian.test@evil.example/>; rel="via"; title*=UTF-8''Looks%20like%20us`;
    expect(sourcesFrom(new Response(null, { headers: { link } }), 'https://meridian.test/api/chat')).toEqual([]);
  });
});
