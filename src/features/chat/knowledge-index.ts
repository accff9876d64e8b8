/**
 * Full-text search over the site's passages with MiniSearch (BM25+ ranking, prefix and fuzzy
 * matching, in-memory, no native code). Built once from plain documents; searching a few
 * hundred passages takes well under a millisecond, so it sits on the request path.
 */
import MiniSearch from 'minisearch';
import { knowledgePassages, newsPassages, type KnowledgeDoc, type NewsDoc, type Passage } from './passages.ts';
import { isStopword, stem, words } from './text-terms.ts';

/** A query: each term with its weight (1 for the new question, lower for earlier turns). */
export type WeightedTerms = ReadonlyMap<string, number>;

export interface SearchHit {
  passage: Passage;
  score: number;
  /** The query terms this passage matched (exactly, by prefix or fuzzily). */
  matched: string[];
}

/** A news article in the "latest news" list. */
export interface NewsListing {
  id: string;
  heading: string;
  url: string;
  date: string;
}

export interface Corpus {
  news: readonly NewsDoc[];
  knowledge: readonly KnowledgeDoc[];
}

export class KnowledgeIndex {
  readonly #search: MiniSearch<Passage>;
  readonly #passages: Map<string, Passage>;
  /** Published articles, newest first. */
  readonly latestNews: readonly NewsListing[];

  constructor(passages: readonly Passage[], latestNews: readonly NewsListing[] = []) {
    this.#passages = new Map(passages.map((p) => [p.id, p]));
    this.latestNews = latestNews;
    this.#search = new MiniSearch<Passage>({
      fields: ['title', 'section', 'text', 'code', 'context'],
      extractField: (doc, field) => (field === 'code' ? doc.code.join('\n') : (doc[field as keyof Passage] as string | undefined)) ?? '',
      tokenize: (text) => words(text),
      // Index with the same stemming as queries; a short stopword list keeps the index small
      // (questions are cleaned more aggressively by `terms()`).
      processTerm: (term) => (isStopword(term) ? null : stem(term)),
      // Only ids are stored; passages are looked up in the map.
      storeFields: [],
      logger: () => {},
    });
    this.#search.addAll(passages as Passage[]);
  }

  /** Index the corpus: published news (drafts skipped) and the knowledge base. */
  static fromCorpus({ news, knowledge }: Corpus): KnowledgeIndex {
    const published = news.filter((doc) => !doc.draft).toSorted((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    const passages = [...published.flatMap(newsPassages), ...knowledge.flatMap(knowledgePassages)];
    return new KnowledgeIndex(
      passages,
      published.map((doc) => ({ id: doc.id, heading: doc.heading, url: `/news/${doc.id}`, date: doc.createdAt.toISOString().slice(0, 10) })),
    );
  }

  get size(): number {
    return this.#passages.size;
  }

  /** Best passages for the weighted terms, best first. */
  search(query: WeightedTerms, limit = 5): SearchHit[] {
    if (query.size === 0) return [];
    const results = this.#search.search([...query.keys()].join(' '), {
      // Terms are already normalised by `terms()`; split them back as they are.
      tokenize: (text) => text.split(' '),
      processTerm: (term) => term,
      boost: { title: 2, section: 1.5, text: 1, code: 0.6, context: 0.5 },
      boostTerm: (term) => query.get(term) ?? 1,
      // Knowledge pages are written as answers, and a page's opening passage is its overview:
      // both a little ahead of news passages that merely mention the same words.
      boostDocument: (id: string) => (id.startsWith('kb:') ? 1.15 : 1) * (id.endsWith('#0') ? 1.15 : 1),
      // Prefix matching joins "limit" and "limits"; a typo allowance only for longer words,
      // where one edit rarely turns a word into another real one.
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.2 : false),
      weights: { fuzzy: 0.3, prefix: 0.6 },
    });
    return results.slice(0, limit).flatMap((result) => {
      const passage = this.#passages.get(result.id as string);
      return passage ? [{ passage, score: result.score, matched: result.queryTerms }] : [];
    });
  }
}
