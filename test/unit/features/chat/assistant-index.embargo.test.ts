/**
 * Scheduled articles in the assistant's index (index-writer.ts `embargo`): indexed with their
 * instant by the build, left out of answers and of the latest news until the clock reaches it.
 */
import { describe, expect, it } from 'vitest';
import { conversationQuery } from '../../../../src/features/chat/built-in-assistant.ts';
import { AssistantIndex } from '../../../../src/features/chat/assistant-index.ts';
import type { NewsDoc } from '../../../../src/features/chat/passages.ts';
import { siteKnowledge, siteNews } from '../../../helpers/site-corpus.ts';

const BUILT = Date.parse('2026-11-27T12:00:00Z');
const AT = Date.parse('2099-01-01T00:00:00Z');
const scheduled: NewsDoc = { id: 'walrus-region', heading: 'The walrus region opens', subheading: undefined, body: 'The walrusfjord region opens for bidding.', createdAt: new Date(AT), draft: false };
const corpus = { news: [...siteNews(), scheduled], knowledge: siteKnowledge(), builtAt: BUILT };
const query = conversationQuery([{ role: 'user', content: 'walrusfjord region' }]).weighted;

describe('a scheduled article in the assistant index', () => {
  it('is not answered from, nor listed as latest, before its instant', () => {
    const index = AssistantIndex.fromCorpus(corpus, { now: () => AT - 1 });
    expect(index.search(query, 5).map((hit) => hit.passage.url)).not.toContain('/news/walrus-region');
    expect(index.latestNews(3).map((news) => news.id)).not.toContain('walrus-region');
    expect(index.latestNews(3)).toHaveLength(3);
  });

  it('is, from its instant on', () => {
    const index = AssistantIndex.fromCorpus(corpus, { now: () => AT });
    expect(index.search(query, 5)[0]?.passage.url).toBe('/news/walrus-region');
    expect(index.latestNews(3)[0]?.id).toBe('walrus-region');
  });
});
