import { describe, expect, it } from 'vitest';
import { inlineToPlain, knowledgePassages, newsPassages } from '../../../../src/features/chat/passages.ts';

describe('knowledge passages', () => {
  const doc = {
    id: 'api',
    title: 'The data API',
    summary: 'Daily statistics as JSON.',
    body: [
      'Intro with no link.',
      '',
      '## Making a request',
      '',
      'Send a GET request; the [API documentation](/docs/api) has details',
      'on every field.',
      '',
      '```',
      'curl "https://<this site>/api/v1/public/data?startDate=2026-07-01&endDate=2026-07-02"',
      '```',
      '',
      '## Limits',
      '',
      '- 60 requests a minute;',
      '- 5,000 a day, see /stats.',
    ].join('\n'),
  };
  const passages = knowledgePassages(doc);

  it('cuts a page at its headings, one passage per section', () => {
    expect(passages.map((p) => [p.id, p.section])).toEqual([
      ['kb:api#0', ''],
      ['kb:api#1', 'Making a request'],
      ['kb:api#2', 'Limits'],
    ]);
  });

  it('joins wrapped lines, keeps list items apart and code blocks verbatim', () => {
    expect(passages[1]!.text).toBe('Send a GET request; the API documentation (/docs/api) has details on every field.');
    expect(passages[1]!.code).toEqual(['curl "https://<this site>/api/v1/public/data?startDate=2026-07-01&endDate=2026-07-02"']);
    expect(passages[2]!.text).toBe('- 60 requests a minute;\n- 5,000 a day, see /stats.');
  });

  it('links a passage to the first site page it names, Markdown link or written-out path', () => {
    expect(passages.map((p) => p.url)).toEqual([undefined, '/docs/api', '/stats']);
  });

  it('gives the opening passage the page title and summary as context, the others the title', () => {
    expect(passages.length).toBeGreaterThan(1);
    expect(passages.map((p) => p.context)).toEqual(passages.map((_, n) => (n === 0 ? 'The data API Daily statistics as JSON.' : 'The data API')));
  });

  it('links every passage of a page that describes a site page to that page, with its keywords as context', () => {
    const page = knowledgePassages({ id: 'page-stats', title: 'Daily statistics', summary: 'Charts.', keywords: 'csv table', page: '/stats', body: 'See [the docs](/docs/api).\n\n## More\n\nText.' });
    expect(page.map((p) => [p.url, p.context])).toEqual([
      ['/stats', 'Daily statistics Charts. csv table'],
      ['/stats', 'Daily statistics'],
    ]);
  });
});

describe('news passages', () => {
  const article = { id: 'new-region', heading: 'A new region', subheading: 'Lower latency.', body: 'Live **today**.', createdAt: new Date('2026-10-21T05:00:00Z') };

  it('link every passage of an article to the article page, with its date', () => {
    expect(newsPassages(article)).toEqual([
      { id: 'news:new-region#0', kind: 'news', title: 'A new region', section: 'Lower latency.', text: 'Live today.', code: [], context: '', url: '/news/new-region', date: '2026-10-21' },
    ]);
  });

  it('never quote a draft', () => {
    expect(newsPassages({ ...article, draft: true })).toEqual([]);
  });

  it('split a long article at paragraphs', () => {
    const body = Array.from({ length: 6 }, (_, i) => `Paragraph ${i} ${'word '.repeat(60)}`).join('\n\n');
    const parts = newsPassages({ ...article, body });
    expect(parts.length).toBeGreaterThan(1);
    expect(new Set(parts.map((p) => p.url))).toEqual(new Set(['/news/new-region']));
  });
});

describe('inlineToPlain', () => {
  it('keeps link targets beside their labels and drops emphasis and code marks', () => {
    const links: string[] = [];
    expect(inlineToPlain('See the [form](/contact), the **spec** at [IAB](https://iabtechlab.com) and `ads.txt`.', links)).toBe(
      'See the form (/contact), the spec at IAB (https://iabtechlab.com) and ads.txt.',
    );
    expect(links).toEqual(['/contact']);
  });

  it('does not repeat a path used as its own label', () => {
    expect(inlineToPlain('[/sellers.json](/sellers.json)')).toBe('/sellers.json');
  });
});
