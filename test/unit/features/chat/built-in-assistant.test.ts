import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { composeReply, conversationQuery, detectIntent, replyChunks, retrieve } from '../../../../src/features/chat/built-in-assistant.ts';
import type { ChatMessage } from '../../../../src/features/chat/chat-request.ts';
import { AssistantIndex } from '../../../../src/features/chat/assistant-index.ts';
import type { KnowledgeDoc, NewsDoc } from '../../../../src/features/chat/passages.ts';
import { chatServices } from '../../../helpers/chat-harness.ts';
import { generatedArchive } from '../../../helpers/generated-archive.ts';
import { siteKnowledge, siteNews } from '../../../helpers/site-corpus.ts';

const user = (content: string): ChatMessage => ({ role: 'user', content });
const assistant = (content: string): ChatMessage => ({ role: 'assistant', content });

/** A small fixed corpus, so that these tests do not move when the site's content does. */
const fixtureKnowledge: KnowledgeDoc[] = [
  {
    id: 'data-api',
    title: 'The community data API',
    body: [
      'The community data API returns daily statistics as JSON; see the [API documentation](/docs/api).',
      '',
      '## Making a request',
      '',
      'Send GET /api/v1/public/data with a startDate and an endDate ([docs](/docs/api)).',
      '',
      '```',
      'curl "https://<this site>/api/v1/public/data?startDate=2026-07-01&endDate=2026-07-31"',
      '```',
      '',
      '## Limits',
      '',
      'The data API accepts 60 requests a minute and 5,000 a day. A range spans at most 31 days ([docs](/docs/api)).',
    ].join('\n'),
  },
  {
    id: 'contact',
    title: 'Contacting the team',
    body: [
      'Use the [contact form](/contact) to reach the team.',
      '',
      '## Limits',
      '',
      'The [contact form](/contact) limits submissions: 20 an hour. Limits keep spam out; limits reset every hour.',
    ].join('\n'),
  },
];
const fixtureNews: NewsDoc[] = [
  { id: 'singapore-region', heading: 'A new bidding region in Singapore', subheading: 'Lower latency for Asia-Pacific.', body: 'Our Singapore region is live. The median round trip fell from 190 ms to 60 ms.', createdAt: new Date('2026-10-21T05:00:00Z') },
  { id: 'sellers-json', heading: 'Our sellers.json file is now public', subheading: null, body: 'Every seller account is listed in the file.', createdAt: new Date('2026-02-16T08:00:00Z') },
  { id: 'secret-launch', heading: 'Unannounced zeppelin partnership', subheading: null, body: 'Zeppelin advertising starts next year.', createdAt: new Date('2026-12-01T08:00:00Z'), draft: true },
];
const fixtures = AssistantIndex.fromCorpus({ news: fixtureNews, knowledge: fixtureKnowledge });
const site = AssistantIndex.fromCorpus({ news: siteNews(), knowledge: siteKnowledge() });
/** Answers under the default configuration (the help pages' numbers are filled in from it). */
const answer = { config: chatServices().config };

describe('intents', () => {
  it.each([
    ['Hello!', 'greeting'],
    ['good morning', 'greeting'],
    ['Hey there', 'greeting'],
    ['Thanks!', 'thanks'],
    ['thank you', 'thanks'],
    ['How do I contact the team?', 'contact'],
    ['Can I talk to a human?', 'contact'],
    ['I want to get in touch with sales', 'contact'],
    ["What's new?", 'latest_news'],
    ['show me the latest news', 'latest_news'],
    ['What can you do?', 'capabilities'],
    ['What is sellers.json?', 'question'],
    ['Hi, what is sellers.json?', 'question'],
    ['What is the contact_email field in sellers.json?', 'question'],
  ] as const)('reads %j as %s', (text, intent) => {
    expect(detectIntent(text).intent).toBe(intent);
  });
});

describe('the built-in assistant', () => {
  it('answers a greeting with a greeting', () => {
    const reply = composeReply([user('Hello!')], site, answer);
    expect(reply.intent).toBe('greeting');
    expect(reply.text).toMatch(/^Hello! I'm the site assistant\./);
  });

  it('greets back and still answers when a greeting opens a question', () => {
    const reply = composeReply([user('Hi, what is sellers.json?')], fixtures, answer);
    expect(reply.text).toMatch(/^Hello! /);
    expect(reply.links).toContain('/news/sellers-json');
  });

  it.each(['How do I contact the team?', 'Can I talk to a human?', 'I need to get in touch'])('points %j to the contact form', (question) => {
    const reply = composeReply([user(question)], site, answer);
    expect(reply.intent).toBe('contact');
    expect(reply.links[0]).toBe('/contact');
    expect(reply.text).toContain('contact form: /contact');
  });

  it.each(['What is the capital of France?', "What's the weather in Paris tomorrow?", 'How do I bake bread with the API?'])(
    'says it does not know %j and offers the contact form instead of guessing',
    (question) => {
      const reply = composeReply([user(question)], site, answer);
      expect(reply.grounded).toBe(false);
      expect(reply.text).toMatch(/^I don't know/);
      expect(reply.text).toContain('/contact');
    },
  );

  it('quotes the best passage and links to its page', () => {
    const reply = composeReply([user('How much did the round trip latency fall in Singapore?')], fixtures, answer);
    expect(reply.text).toContain('The median round trip fell from 190 ms to 60 ms.');
    expect(reply.links[0]).toBe('/news/singapore-region');
    expect(reply.text).toContain('Read more: /news/singapore-region');
  });

  it('shows the example command for a "how do I" question, with the real site origin', () => {
    const reply = composeReply([user('How do I request the data API with curl?')], fixtures, { ...answer, siteUrl: 'https://meridian.test' });
    expect(reply.text).toContain('curl "https://meridian.test/api/v1/public/data?startDate=2026-07-01&endDate=2026-07-31"');
    expect(reply.links[0]).toBe('/docs/api');
  });

  it('never quotes a draft article', () => {
    const reply = composeReply([user('Tell me about the zeppelin partnership')], fixtures, answer);
    expect(reply.grounded).toBe(false);
    expect(reply.text).not.toMatch(/zeppelin/i);
  });

  it('reads the conversation: a follow-up question is answered in the context of the earlier one', () => {
    const alone = composeReply([user('What are the limits?')], fixtures, answer);
    const inContext = composeReply([user('How do I use the data API?'), assistant('From "The community data API": ...'), user('What are the limits?')], fixtures, answer);
    expect(alone.links[0]).toBe('/contact');
    expect(inContext.links[0]).toBe('/docs/api');
    expect(inContext.text).toContain('60 requests a minute');
  });

  it('weights earlier turns below the newest message', () => {
    const { weighted, focus } = conversationQuery([user('sellers json'), assistant('...'), user('rate limits')]);
    expect([...focus]).toEqual(['rate', 'limit']);
    expect(Object.fromEntries(weighted)).toEqual({ rate: 1, limit: 1, seller: 0.3, json: 0.3 });
  });

  it('takes the topic of "tell me more" from the previous question and quotes something new', () => {
    const first = composeReply([user('What is sellers.json?')], site, answer);
    const more = composeReply([user('What is sellers.json?'), assistant(first.text), user('Tell me more')], site, answer);
    expect(more.grounded).toBe(true);
    expect(more.text).not.toBe(first.text);
    expect(more.links.some((link) => link.includes('sellers'))).toBe(true);
  });

  it('lists the latest published articles, newest first', () => {
    const expected = siteNews()
      .filter((doc) => !doc.draft)
      .toSorted((a, b) => b.createdAt.getTime() - a.createdAt.getTime())
      .slice(0, 3)
      .map((doc) => `/news/${doc.id}`);
    const reply = composeReply([user("What's new?")], site, answer);
    expect(reply.links).toEqual(expected);
    for (const link of expected) expect(reply.text).toContain(link);
  });

  it('retrieves nothing for the LLM when nothing is relevant', () => {
    expect(retrieve([user('What is the capital of France?')], site, answer)).toEqual([]);
    expect(retrieve([user('What is sellers.json?')], site, answer).length).toBeGreaterThan(0);
  });
});

describe('grounding in the site content', () => {
  const published = siteNews().filter((doc) => !doc.draft);

  it('has articles to test with', () => {
    expect(published.length).toBeGreaterThan(0);
  });

  it.each(published.map((doc) => [doc.id, doc.heading] as const))('links a question about the article %s to its page', (id, heading) => {
    const reply = composeReply([user(`Tell me about "${heading}"`)], site, answer);
    expect(reply.grounded).toBe(true);
    expect(reply.links).toContain(`/news/${id}`);
  });

  it.each([
    ['What is sellers.json?', '/sellers.json'],
    ['How do I download daily statistics from the data API?', '/docs/api'],
    ['Which priority should I pick for a campaign that stopped delivering?', '/contact'],
    ['Is there an RSS feed?', '/rss.xml'],
  ])('answers %j from the knowledge base with a link to %s', (question, link) => {
    const reply = composeReply([user(question)], site, answer);
    expect(reply.grounded).toBe(true);
    expect(reply.links).toContain(link);
  });
});

/**
 * The assistant's evaluation: questions a visitor asks, each with the page its answer must link
 * to first, asked of the site as it is (9 articles) and of the site with a generated archive of
 * 5,000 articles that repeat the questions' words in their bodies (test/helpers/generated-archive.ts).
 * Pass mark, the same at both sizes: every question grounded, and its answer linked to its page
 * first (or, for a help passage without a link of its own, named by its title): 100 %.
 * The grounding table above and the help-page table in assistant-index.test.ts hold the
 * questions asked before this one; these are the site pages, articles asked about by their
 * topic, and questions whose words the archive repeats.
 */
export const EVALUATION: ReadonlyArray<readonly [question: string, link: string]> = [
  // What a page of the site shows.
  ['Where can I see charts of the daily statistics?', '/stats'],
  ['Is there a table of impressions and revenue per day?', '/stats'],
  ['Can I download the statistics as CSV?', '/stats'],
  ['Where is the API reference?', '/docs/api'],
  ['Which endpoints and parameters does the API documentation describe?', '/docs/api'],
  ['Where is the OpenAPI document?', '/docs/api'],
  ['Where is the contact form?', '/contact'],
  // An article, asked about by its title's topic rather than its title.
  ['Tell me about the bidding region in Singapore', '/news/singapore-region'],
  ['What did the transparency report for the first half of 2026 show?', '/news/transparency-report-h1-2026'],
  ['Is the SupplyChain object mandatory for resellers now?', '/news/supply-chain-object-required'],
  ['How can I check my ads.txt lines?', '/news/ads-txt-checker'],
  ['What did you learn from the privacy-preserving auctions?', '/news/privacy-sandbox-testing'],
  ['What is the new self-service check for publishers?', '/news/ads-txt-checker'],
  ['Is the API for daily market data free?', '/news/community-data-api'],
  ['Are answers through the contact form faster now?', '/news/contact-priorities'],
  // Words the generated archive repeats in every body.
  ['What are the rate limits of the data API?', '/docs/api'],
  ['Which priority should I choose in the contact form?', '/contact'],
  ['What does a sellers.json file list?', '/sellers.json'],
  ['Which headers tell me where I stand against the rate limits?', 'Rate limits on this website: Headers'],
  ['Show me a curl example for the data API', 'The community data API'],
];

describe('the evaluation, at 9 and at 5,000 articles', () => {
  const news = siteNews();
  const sizes = [
    ['9 articles', site],
    ['5,000 articles', AssistantIndex.fromCorpus({ news: [...news, ...generatedArchive(5_000)], knowledge: siteKnowledge() })],
  ] as const;

  it('asks of the real site and of an archive 5,000 articles larger', () => {
    expect(news).toHaveLength(9);
    expect(sizes[1][1].size - site.size).toBeGreaterThanOrEqual(5_000);
  });

  it('links the help pages that describe a site page to a page the site has', () => {
    const described = siteKnowledge().flatMap((doc) => (doc.page ? [doc.page] : []));
    expect(described.toSorted()).toEqual(['/contact', '/docs/api', '/stats']);
    for (const page of described) expect([`${page}.astro`, `${page}/index.astro`].some((file) => existsSync(join(import.meta.dirname, '../../../../src/pages', file))), page).toBe(true);
  });

  describe.each(sizes)('with %s', (_, index) => {
    it.each(EVALUATION)('answers %j from %s', (question, link) => {
      const reply = composeReply([user(question)], index, answer);
      expect(reply.grounded, reply.text).toBe(true);
      if (link.startsWith('/')) expect(reply.links[0], reply.text).toBe(link);
      else expect(reply.text).toMatch(new RegExp(`^From "${link}`));
    });
  });
});

describe('replyChunks', () => {
  it('cuts a reply into pieces of a few words that add up to the reply exactly', () => {
    const text = 'From "A page":\nOne two three four five.\n\nRead more: /news/x';
    const chunks = replyChunks(text, 3);
    expect(chunks.join('')).toBe(text);
    expect(chunks.length).toBe(Math.ceil(text.split(/\s+/).length / 3));
    expect(chunks.every((chunk) => chunk.trim().split(/\s+/).length <= 3)).toBe(true);
  });
});
