import { describe, expect, it } from 'vitest';
import { describeWait, retryAfterSeconds } from '../../../../src/lib/retry-after.ts';
import { turnsToSend } from '../../../../src/features/chat/widget-state.client.ts';
import { linkTarget, sourcesFrom } from '../../../../src/features/chat/widget-dom.client.ts';

describe('the widget', () => {
  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-03T10:00:00Z');
    expect(retryAfterSeconds('42', now)).toBe(42);
    expect(retryAfterSeconds('Tue, 03 Nov 2026 10:01:30 GMT', now)).toBe(90);
    expect(retryAfterSeconds(null, now)).toBe(60);
    expect(retryAfterSeconds('soon', now)).toBe(60);
  });

  it('tells the wait in words', () => {
    expect([1, 45, 60, 61, 3600, 7201].map(describeWait)).toEqual(['1 second', '45 seconds', '1 minute', '2 minutes', '1 hour', '3 hours']);
  });

  it('sends at most the 50 most recent turns, each within 4,000 characters', () => {
    const turns = Array.from({ length: 70 }, (_, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: `turn ${i} ${'x'.repeat(i === 69 ? 5000 : 10)}` }));
    const sent = turnsToSend(turns);
    expect(sent).toHaveLength(50);
    expect(sent[0]!.content.startsWith('turn 20 ')).toBe(true);
    expect(sent.at(-1)!.content).toHaveLength(4000);
  });

  it('keeps the request body under the server limit by dropping the oldest turns', () => {
    const turns = Array.from({ length: 30 }, (_, i) => ({ role: 'user' as const, content: `${i} ${'é'.repeat(3990)}` }));
    const sent = turnsToSend(turns);
    expect(new TextEncoder().encode(JSON.stringify({ messages: sent })).length).toBeLessThanOrEqual(64 * 1024);
    expect(sent.at(-1)!.content.startsWith('29 ')).toBe(true);
    expect(sent.length).toBeLessThan(30);
  });

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
