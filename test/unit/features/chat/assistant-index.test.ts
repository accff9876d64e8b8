/**
 * The assistant's search index: written by the build as a SQLite file, opened read-only by the
 * server, and still right when the news archive is large: help pages ahead of articles that
 * merely mention their words, and the bounded search ranking as the exhaustive one does.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { composeReply, conversationQuery } from '../../../../src/features/chat/built-in-assistant.ts';
import { buildIndexImage, INDEX_FORMAT, type Corpus } from '../../../../src/features/chat/index-writer.ts';
import { AssistantIndex, AssistantIndexError, MAX_QUERY_TERMS, POSTINGS_PER_TERM, type WeightedTerms } from '../../../../src/features/chat/assistant-index.ts';
import type { NewsDoc } from '../../../../src/features/chat/passages.ts';
import { chatServices } from '../../../helpers/chat-harness.ts';
import { siteKnowledge, siteNews } from '../../../helpers/site-corpus.ts';

const siteCorpus: Corpus = { news: siteNews(), knowledge: siteKnowledge() };
const site = AssistantIndex.fromCorpus(siteCorpus);
const weighted = (question: string): WeightedTerms => conversationQuery([{ role: 'user', content: question }]).weighted;

const QUESTIONS = [
  'What is sellers.json?',
  'How do I download daily statistics from the data API?',
  'Which priority should I pick for a campaign that stopped delivering?',
  'Is there an RSS feed?',
  'What are the rate limits?',
  'How can I contact the team about a high priority issue?',
  'What does the transparency report say?',
  'transparncy reprot',
  'statistcs',
  'singapore latency',
  'supply chain object',
  'Tell me about the privacy sandbox auctions',
  ...siteCorpus.news.filter((doc) => !doc.draft).map((doc) => doc.heading),
];

function tempFile(name: string): string {
  return join(mkdtempSync(join(tmpdir(), 'assistant-index-')), name);
}

/** What a search returned, comparable across indexes. */
function outline(index: AssistantIndex, question: string, limit = 8) {
  return index.search(weighted(question), limit).map((hit) => ({ id: hit.passage.id, score: hit.score, matched: hit.matched.toSorted() }));
}

/**
 * `count` generated articles about the exchange that use the words of the help pages (data API,
 * daily statistics, sellers.json, rate limits, contact form) without being about any one of them.
 */
function mentioningArticles(count: number): NewsDoc[] {
  const sentences = [
    'Our data API team met partners in Berlin this week.',
    'Daily statistics for the quarter were discussed at the conference.',
    'The sellers.json file came up in a panel on supply paths.',
    'Rate limits were one topic among many at the meetup.',
    'Readers may write to us through the contact form, as always.',
    'Impressions and revenue grew in several regions.',
    'The team will share more news about the exchange soon.',
  ];
  return Array.from({ length: count }, (_, n) => ({
    id: `mention-${n}`,
    heading: `Exchange notes, week ${n}`,
    subheading: 'News from around the exchange.',
    body: Array.from({ length: 4 }, (_, i) => sentences[(n + i * 3) % sentences.length]).join(' '),
    createdAt: new Date(Date.UTC(2024, 0, 1) + n * 3_600_000),
  }));
}

/**
 * `count` articles like the ones bench/scenarios/astro-build.ts generates: the same paragraphs,
 * which hold the words of the bench's questions (auction, seller, transparency, data API).
 */
function repeatedArticles(count: number): NewsDoc[] {
  const body = `This article was generated to measure how the build scales with the news archive.

## A section

Auction volumes, seller transparency and the data API are the usual subjects. Here is a list:

- one item with **bold** text
- another with a [link](/news/)

The last paragraph closes the article with a sentence or two about what comes next.`;
  return Array.from({ length: count }, (_, n) => ({
    id: `bench-article-${n}`,
    heading: `Benchmark article number ${n}`,
    subheading: 'One of the generated articles that measure how the build scales with the news archive.',
    body,
    createdAt: new Date(Date.UTC(2023, 0, 1) + n * 6 * 3_600_000),
  }));
}

describe('the index file', () => {
  it('is written by the build and opened read-only, answering as the index built in memory does', () => {
    const file = tempFile('assistant-index.sqlite');
    writeFileSync(file, buildIndexImage(siteCorpus));
    const digest = () => createHash('sha256').update(readFileSync(file)).digest('hex');
    const before = digest();
    const opened = AssistantIndex.open(file);
    try {
      expect(opened.size).toBe(site.size);
      expect(opened.size).toBeGreaterThan(0);
      expect(opened.latestNews(3)).toEqual(site.latestNews(3));
      for (const question of QUESTIONS) expect(outline(opened, question)).toEqual(outline(site, question));
      const hit = opened.search(weighted('How do I request the data API with curl?'), 1)[0]!;
      expect(hit.passage).toEqual(site.search(weighted('How do I request the data API with curl?'), 1)[0]!.passage);
    } finally {
      opened.close();
    }
    // Searching wrote nothing: no journal, no WAL, the same bytes.
    expect(digest()).toBe(before);
    expect(['-journal', '-wal', '-shm'].filter((suffix) => existsSync(file + suffix))).toEqual([]);
  });

  it('lists the published articles newest first, without drafts', () => {
    const news: NewsDoc[] = [
      { id: 'old', heading: 'Old', body: 'Old news.', createdAt: new Date('2026-01-01T00:00:00Z') },
      { id: 'draft', heading: 'Draft', body: 'Not yet.', createdAt: new Date('2026-12-01T00:00:00Z'), draft: true },
      { id: 'new', heading: 'New', body: 'New news.', createdAt: new Date('2026-06-01T00:00:00Z') },
    ];
    const index = AssistantIndex.fromCorpus({ news, knowledge: [] });
    expect(index.latestNews(5)).toEqual([
      { id: 'new', heading: 'New', url: '/news/new', date: '2026-06-01' },
      { id: 'old', heading: 'Old', url: '/news/old', date: '2026-01-01' },
    ]);
    expect(index.search(new Map([['yet', 1]]))).toEqual([]);
  });

  it('refuses a missing file, one of another format and one that is not an index, naming the file', () => {
    const missing = tempFile('assistant-index.sqlite');
    const outdated = tempFile('assistant-index.sqlite');
    const db = new Database(outdated);
    db.pragma(`user_version = ${INDEX_FORMAT + 1}`);
    db.close();
    const garbage = tempFile('assistant-index.sqlite');
    writeFileSync(garbage, 'not a database, only text that is long enough to have a header of sorts');
    const refusal = (file: string) => {
      try {
        AssistantIndex.open(file).close();
      } catch (error) {
        expect(error).toBeInstanceOf(AssistantIndexError);
        expect((error as AssistantIndexError).code).toBe('ASSISTANT_INDEX_UNUSABLE');
        return (error as Error).message.replace(file, 'FILE');
      }
      throw new Error(`${file} was opened`);
    };
    expect(refusal(missing)).toMatchInlineSnapshot(`"the build has no assistant index (FILE)"`);
    expect(refusal(outdated)).toMatchInlineSnapshot(`"the assistant index (FILE) has format 4, this server reads format 3"`);
    expect(refusal(garbage)).toMatchInlineSnapshot(`"the assistant index (FILE) cannot be read: file is not a database"`);
  });
});

describe('ranking', () => {
  describe('with hundreds of articles that mention the help pages\' words', () => {
    const articles = mentioningArticles(600);
    const corpus = { news: [...siteCorpus.news, ...articles], knowledge: siteCorpus.knowledge };
    const crowded = AssistantIndex.fromCorpus(corpus);

    it('has more of them for a common word than one word reads (the bounded path)', () => {
      expect(articles.filter((doc) => /data API/.test(doc.body)).length).toBeGreaterThan(POSTINGS_PER_TERM);
    });

    it.each([
      ['How do I download daily statistics from the data API?', 'kb:data-api#0', '/docs/api'],
      ['What is sellers.json?', 'kb:sellers-json#0', '/sellers.json'],
      // Which rate-limits passage leads depends on the archive; each links elsewhere or nowhere.
      ['What are the rate limits of the data API?', 'kb:rate-limits#', null],
      ['Which priority should I pick for a campaign that stopped delivering?', 'kb:contact#1', '/contact'],
    ])('still answers %j from the help page %s', (question, passage, link) => {
      for (const index of [site, crowded]) {
        const [top] = index.search(weighted(question), 1);
        expect(top!.passage.id.startsWith(passage)).toBe(true);
        const reply = composeReply([{ role: 'user', content: question }], index, { config: chatServices().config });
        expect(reply.grounded).toBe(true);
        expect(reply.text).toMatch(new RegExp(`^From "${top!.passage.title}`));
        if (link !== null) expect(reply.links[0]).toBe(link);
      }
    });

    it('ranks as the exhaustive search does at the top', () => {
      const exhaustive = AssistantIndex.fromCorpus(corpus, { exhaustive: true });
      for (const question of [...QUESTIONS, 'data api', 'seller transparency data api auction']) {
        const [want] = exhaustive.search(weighted(question), 1);
        const [got] = crowded.search(weighted(question), 1);
        expect(got?.passage.id, question).toBe(want?.passage.id);
        expect(got?.score, question).toBeCloseTo(want!.score, 9);
        expect(got?.matched.toSorted(), question).toEqual(want?.matched.toSorted());
      }
    });
  });

  it("never puts an article that merely repeats the question's words ahead of the site's own pages", () => {
    const noisy = AssistantIndex.fromCorpus({ news: [...siteCorpus.news, ...repeatedArticles(2_000)], knowledge: siteCorpus.knowledge });
    const expected: Array<[string, string]> = [
      ['How do I use the data API?', 'kb:data-api#'],
      ['What are the rate limits?', 'kb:rate-limits#'],
      ['Where is your sellers.json?', 'kb:sellers-json#0'],
      ['How can I contact the team about a high priority issue?', 'kb:contact#'],
      ['What does the transparency report say?', 'news:transparency-report-h1-2026#0'],
      // Five subjects at once: any of the site's own pages, never a generated one.
      ['seller transparency data api auction', ''],
      ['auction volumes', 'news:privacy-sandbox-testing#0'],
    ];
    for (const [question, passage] of expected) {
      const [top] = noisy.search(weighted(question), 1);
      expect(top?.passage.id.startsWith(passage), `${question}: ${top?.passage.id}`).toBe(true);
      expect(top?.passage.id, question).not.toMatch(/bench-article/);
    }
  });

  it.each([
    ['transparncy', 'news:transparency-report-h1-2026#0'],
    ['trnasparency', 'news:transparency-report-h1-2026#0'],
    ['priorty', 'kb:contact#1'],
    ['singapor', 'news:singapore-region#0'],
  ])('finds the page of a long word from a typo or a prefix (%s)', (word, passage) => {
    const [top] = site.search(new Map([[word, 1]]), 1);
    expect(top?.passage.id).toBe(passage);
    expect(top?.matched).toEqual([word]);
  });

  it('weighs a prefix match below the word itself, and allows no typo in a short word', () => {
    const [exact] = site.search(new Map([['transparency', 1]]), 1);
    const [prefix] = site.search(new Map([['transpar', 1]]), 1);
    expect(prefix!.passage.id).toBe(exact!.passage.id);
    expect(prefix!.score).toBeLessThan(exact!.score);
    // "latncy" is one edit from "latency", but five letters are too few for a typo allowance.
    expect(site.search(new Map([['ltncy', 1]]), 1)).toEqual([]);
  });

  it(`searches at most ${MAX_QUERY_TERMS} terms of a conversation, the newest message's first`, () => {
    const filler = Array.from({ length: MAX_QUERY_TERMS }, (_, i): [string, number] => [`filler${i}word`, 1]);
    expect(site.search(new Map([['seller', 1], ...filler]), 1)).toHaveLength(1);
    expect(site.search(new Map([...filler, ['seller', 1]]), 1)).toEqual([]);
  });
});
