import { describe, expect, it } from 'vitest';
import { composeReply, retrieve, sourcesOf } from '../../../../src/features/chat/built-in-assistant.ts';
import type { ChatMessage } from '../../../../src/features/chat/chat-request.ts';
import { AssistantIndex } from '../../../../src/features/chat/assistant-index.ts';
import { distinctSources, formatSourcesLink, parseSourcesLink, SOURCE_LIMITS } from '../../../../src/features/chat/sources.ts';
import { createOpenApiDocument } from '../../../../src/api-docs/document.ts';
import { chatServices } from '../../../helpers/chat-harness.ts';
import { siteKnowledge, siteNews } from '../../../helpers/site-corpus.ts';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const site = AssistantIndex.fromCorpus({ news: siteNews(), knowledge: siteKnowledge() });
const answer = { config: chatServices().config };
const published = siteNews()
  .filter((doc) => !doc.draft)
  .toSorted((a, b) => b.createdAt.getTime() - a.createdAt.getTime());

describe('the Link header of the sources (RFC 8288)', () => {
  it('writes one rel="via" link per source, the title as an RFC 8187 ext-value', () => {
    expect(formatSourcesLink([{ url: '/news/singapore-region', title: 'A new region' }])).toBe(`</news/singapore-region>; rel="via"; title*=UTF-8''A%20new%20region`);
  });

  it('is absent when there is nothing to list', () => {
    expect(formatSourcesLink([])).toBeUndefined();
    expect(formatSourcesLink([{ url: 'https://elsewhere.example/', title: 'Not ours' }])).toBeUndefined();
  });

  it('round-trips titles with quotes, commas, semicolons, angle brackets and any script', () => {
    const sources = [
      { url: '/news/a', title: 'Say "hello", then; <leave> (quietly) it\'s *fine*' },
      { url: '/docs/api', title: 'Données quotidiennes — 每日统计 🚀' },
      { url: '/sellers.json', title: 'sellers.json' },
    ];
    const header = formatSourcesLink(sources)!;
    // A field value is visible ASCII: the titles travel percent-encoded.
    expect(header).toMatch(/^[\x20-\x7e]+$/);
    expect(parseSourcesLink(header)).toEqual(sources);
  });

  it('lists each page once, at most four, and only site paths', () => {
    const sources = distinctSources([
      { url: '/news/a', title: 'A' },
      { url: '/news/a', title: 'A again' },
      { url: undefined, title: 'No page' },
      { url: '//evil.example/x', title: 'Protocol-relative' },
      { url: 'javascript:alert(1)', title: 'Script' },
      { url: '/news/with space', title: 'Space' },
      { url: '/news/b>; rel="next"', title: 'Injection' },
      { url: '/news/b', title: 'B' },
      { url: '/news/c', title: 'C' },
      { url: '/news/d', title: 'D' },
      { url: '/news/e', title: 'E' },
    ]);
    expect(sources.map((s) => s.url)).toEqual(['/news/a', '/news/b', '/news/c', '/news/d']);
    expect(sources).toHaveLength(SOURCE_LIMITS.count);
  });

  it('shortens long titles and keeps the whole header within its byte bound', () => {
    const long = '長'.repeat(500);
    const [source] = distinctSources([{ url: '/news/a', title: long }]);
    expect([...source!.title]).toHaveLength(SOURCE_LIMITS.titleChars);
    expect(source!.title.endsWith('…')).toBe(true);
    const header = formatSourcesLink(['a', 'b', 'c', 'd'].map((id) => ({ url: `/news/${id}`, title: long })))!;
    expect(header.length).toBeLessThanOrEqual(SOURCE_LIMITS.headerBytes);
    // Each link alone is about 1,100 bytes: only one fits.
    expect(parseSourcesLink(header)).toHaveLength(1);
  });

  it('reads only rel="via" links, with a plain title when there is no title*, and never throws', () => {
    const header = [
      '</style.css>; rel=preload; as=style',
      '</news/a>; rel="related via"; title="Quoted \\"A\\""',
      '</news/b>; title*=UTF-8\'en\'B%C3%A9; rel=via',
      '</news/c>; rel=via; title*=UTF-8\'\'%E0%A4%A',
    ].join(', ');
    expect(parseSourcesLink(header)).toEqual([
      { url: '/news/a', title: 'Quoted "A"' },
      { url: '/news/b', title: 'Bé' },
      { url: '/news/c', title: '/news/c' },
    ]);
    expect(parseSourcesLink(null)).toEqual([]);
    expect(parseSourcesLink('garbage, <; rel')).toEqual([]);
  });
});

describe('which pages are the sources', () => {
  it('of a built-in answer: the pages it quotes, titled', () => {
    const article = published[0]!;
    const reply = composeReply([user(`Tell me about "${article.heading}"`)], site, answer);
    expect(reply.sources[0]).toEqual({ url: `/news/${article.id}`, title: article.heading });
    expect(reply.sources.map((s) => s.url)).toEqual(reply.links);
  });

  it('of the latest news: the articles listed', () => {
    const reply = composeReply([user("What's new?")], site, answer);
    expect(reply.sources).toEqual(published.slice(0, 3).map((doc) => ({ url: `/news/${doc.id}`, title: doc.heading })));
  });

  it('of a knowledge answer: the page it points to, named by page and section', () => {
    const reply = composeReply([user('What are the rate limits of the data API?')], site, answer);
    expect(reply.grounded).toBe(true);
    expect(reply.sources.length).toBeGreaterThan(0);
    expect(reply.sources[0]!.url).toBe(reply.links[0]);
    expect(reply.sources[0]!.title.length).toBeGreaterThan(3);
  });

  it.each(['Hello!', 'Thanks!', 'What can you do?', 'What is the capital of France?'])('of %j: none (nothing was quoted)', (question) => {
    expect(composeReply([user(question)], site, answer).sources).toEqual([]);
  });

  it('of the contact pointer: the help page it quotes', () => {
    const reply = composeReply([user('How do I contact the team?')], site, answer);
    expect(reply.sources.map((s) => s.url)).toEqual(['/contact']);
  });

  it('of an LLM answer: the pages of the passages it was given, each once, best first', () => {
    const hits = retrieve([user('What is sellers.json and who is listed in it?')], site, answer);
    const sources = sourcesOf(hits);
    const pages = [...new Set(hits.map((hit) => hit.passage.url).filter(Boolean))];
    expect(sources.map((s) => s.url)).toEqual(pages.slice(0, SOURCE_LIMITS.count));
    expect(sources.length).toBeGreaterThan(0);
  });
});

describe('the Link header in the OpenAPI document', () => {
  const document = JSON.parse(JSON.stringify(createOpenApiDocument({ siteName: 'Meridian', siteUrl: 'https://meridian.test' }))) as {
    paths: Record<string, Record<string, { responses: Record<string, { headers: Record<string, { required?: boolean; schema: { pattern: string } }> }> }>>;
  };
  const link = document.paths['/api/chat']!['post']!.responses['200']!.headers['Link']!;

  it('is optional, and its pattern accepts what the server writes, titles in any script included', () => {
    expect(link.required ?? false).toBe(false);
    const pattern = new RegExp(link.schema.pattern);
    const article = published[0]!;
    for (const question of ["What's new?", `Tell me about "${article.heading}"`, 'How do I contact the team?']) {
      expect(formatSourcesLink(composeReply([user(question)], site, answer).sources)).toMatch(pattern);
    }
    expect(formatSourcesLink([{ url: '/news/a', title: 'Données — 每日 "quoted", (x)' }])).toMatch(pattern);
    expect('</news/a>; rel="next"').not.toMatch(pattern);
  });
});
