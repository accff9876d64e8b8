/**
 * Writes the assistant's search index: a SQLite database made once, by `astro build`, from the
 * content collections (src/pages/assistant-index.sqlite.ts), and opened read-only by the server
 * (assistant-index.ts). Building it is where the work that grows with the archive happens, so
 * that answering a question does not.
 *
 * The index is immutable, so every passage's score for every term it holds is computed here, in
 * full, and stored as one number: the term's *impact* on that passage. The ranking is the one
 * the assistant used with MiniSearch (BM25+ per field over title, section, text, code and
 * context, with their boosts, and the opening-passage boost), with knowledge pages weighed
 * KNOWLEDGE_BOOST rather than 1.15 (see there). A query then only adds impacts, and reads each
 * term's best postings first (an impact-ordered index), so the cost of a question is bounded by
 * the number of its terms, not of articles.
 *
 * Tables:
 *   passage(n, id, kind, title, section, text, code, context, url, date)  what a reply quotes
 *     (a help page's text and code with its `{{fact}}` placeholders, filled at answer time)
 *   term(term, id, reversed, passages)       the vocabulary; `reversed` serves suffix lookups
 *   posting(term, passage, impact)           one row per term and passage that holds it
 *   latest_news(n, id, heading, url, date)   published articles, newest first
 * `PRAGMA user_version` carries INDEX_FORMAT, so a server never reads an index of another shape.
 */
import Database from 'better-sqlite3';
import { assertHelpPages, withoutPlaceholders } from './help-facts.ts';
import { knowledgePassages, newsPassages, type KnowledgeDoc, type NewsDoc, type Passage } from './passages.ts';
import { isStopword, stem, words } from './text-terms.ts';

/** Version of the tables above; bump it with any change to them or to how impacts are computed. */
export const INDEX_FORMAT = 3;

/** File name of the index in the build's server folder (`dist/server/`), never served. */
export const ASSISTANT_INDEX_FILE = 'assistant-index.sqlite';

export interface Corpus {
  news: readonly NewsDoc[];
  knowledge: readonly KnowledgeDoc[];
  /**
   * The build's instant (src/features/news/schedule.ts): articles published after it are
   * scheduled, indexed with their instant and never answered from before it. Unset: none is.
   */
  builtAt?: number;
}

type Field = 'title' | 'section' | 'text' | 'code' | 'context';

/** Searched fields and their boosts: a match in a title counts more than one in page context. */
export const FIELD_BOOSTS: Readonly<Record<Field, number>> = { title: 2, section: 1.5, text: 1, code: 0.6, context: 0.5 };
const FIELDS = Object.keys(FIELD_BOOSTS) as Field[];

/** BM25+ parameters (Lv and Zhai 2011), MiniSearch's defaults, which the assistant used before. */
const BM25 = { k: 1.2, b: 0.7, d: 0.5 };

/**
 * Knowledge pages are written as answers: ahead of news passages that mention the same words.
 * 1.5 rather than the 1.15 the assistant had: a word's rarity is counted per field, so as more
 * articles mention a word in their text, a title or subheading that holds it weighs more, and
 * at 600 to 3,000 such articles the article announcing sellers.json overtook the help page on
 * "What is sellers.json?" at 1.15 (not at 1.5); the site's own questions keep their answers
 * (test/unit/features/chat). Counting rarity over whole passages instead (BM25F) was tried: with the
 * bench's 5,000 generated articles, which all hold the same words, every such word's weight
 * fell to nearly nothing and the generated articles, matching more of them, came first.
 */
export const KNOWLEDGE_BOOST = 1.5;
/** A page's opening passage is its overview. */
const OPENING_BOOST = 1.15;

export function passageBoost(id: string): number {
  return (id.startsWith('kb:') ? KNOWLEDGE_BOOST : 1) * (id.endsWith('#0') ? OPENING_BOOST : 1);
}

/** The indexed terms of a field: its words, stopwords dropped, stemmed (as questions are). */
function fieldTerms(text: string): { terms: Map<string, number>; length: number } {
  const tokens = words(text);
  const terms = new Map<string, number>();
  for (const token of tokens) {
    if (isStopword(token)) continue;
    const term = stem(token);
    terms.set(term, (terms.get(term) ?? 0) + 1);
  }
  // A field's length is its number of distinct words, stopwords included (MiniSearch's measure).
  return { terms, length: new Set(tokens).size };
}

/**
 * A field as it is indexed. A help page's placeholders are stored in the passage, to be filled
 * from the running configuration when it is quoted (help-facts.ts); the index holds the words
 * around them, not the fact's name, whose words ("perMinute") no visitor types.
 */
function fieldText(passage: Passage, field: Field): string {
  return withoutPlaceholders(field === 'code' ? passage.code.join('\n') : passage[field]);
}

/** BM25+ of one field: `tf` occurrences, in this field of `df` of `count` passages, field length against average. */
function bm25(tf: number, df: number, count: number, length: number, averageLength: number): number {
  const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
  return idf * (BM25.d + (tf * (BM25.k + 1)) / (tf + BM25.k * (1 - BM25.b + (BM25.b * length) / averageLength)));
}

/** Code points reversed: the key of suffix lookups (a typo near a word's start keeps its end). */
export function reversedTerm(term: string): string {
  return Array.from(term).reverse().join('');
}

/** Published articles, newest first. */
function publishedNewestFirst(news: readonly NewsDoc[]): NewsDoc[] {
  return news.filter((doc) => !doc.draft).toSorted((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
}

const SCHEMA = `
  CREATE TABLE passage (
    n INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, kind TEXT NOT NULL, title TEXT NOT NULL, section TEXT NOT NULL,
    text TEXT NOT NULL, code TEXT NOT NULL, context TEXT NOT NULL, url TEXT, date TEXT
  );
  CREATE TABLE term (term TEXT PRIMARY KEY, id INTEGER NOT NULL, reversed TEXT NOT NULL, passages INTEGER NOT NULL) WITHOUT ROWID;
  CREATE TABLE posting (term INTEGER NOT NULL, passage INTEGER NOT NULL, impact REAL NOT NULL, PRIMARY KEY (term, passage)) WITHOUT ROWID;
  CREATE TABLE latest_news (n INTEGER PRIMARY KEY, id TEXT NOT NULL, heading TEXT NOT NULL, url TEXT NOT NULL, date TEXT NOT NULL);
  CREATE TABLE embargo (kind TEXT NOT NULL, n INTEGER NOT NULL, at INTEGER NOT NULL, PRIMARY KEY (kind, n)) WITHOUT ROWID;
`;
const INDEXES = `
  CREATE INDEX term_by_reversed ON term (reversed);
  CREATE INDEX posting_by_impact ON posting (term, impact DESC);
`;

/**
 * Fill an empty database with the index of the corpus: published news (drafts never enter it)
 * and the knowledge base. Passage numbers follow the corpus order (news newest first, then
 * knowledge pages), which also breaks ties between equal scores.
 */
export function writeAssistantIndex(db: Database.Database, { news, knowledge, builtAt }: Corpus): void {
  // An unknown or malformed placeholder fails the build here, with its file and line.
  assertHelpPages(knowledge);
  const published = publishedNewestFirst(news);
  const perArticle = published.map(newsPassages);
  const passages = [...perArticle.flat(), ...knowledge.flatMap(knowledgePassages)];
  const embargoes = embargoesOf(published, perArticle, builtAt);
  const count = passages.length;

  // Per field: each passage's term counts and length, then document frequencies and average length.
  const fields = FIELDS.map((field) => {
    const perPassage = passages.map((passage) => fieldTerms(fieldText(passage, field)));
    const df = new Map<string, number>();
    for (const { terms } of perPassage) for (const term of terms.keys()) df.set(term, (df.get(term) ?? 0) + 1);
    const averageLength = count === 0 ? 0 : perPassage.reduce((sum, p) => sum + p.length, 0) / count;
    return { boost: FIELD_BOOSTS[field], perPassage, df, averageLength };
  });

  // term -> [passage number, impact, passage number, impact, ...] in passage order.
  const postings = new Map<string, number[]>();
  passages.forEach((passage, i) => {
    const impacts = new Map<string, number>();
    for (const { boost, perPassage, df, averageLength } of fields) {
      const { terms, length } = perPassage[i]!;
      for (const [term, tf] of terms) impacts.set(term, (impacts.get(term) ?? 0) + boost * bm25(tf, df.get(term)!, count, length, averageLength));
    }
    const boost = passageBoost(passage.id);
    for (const [term, impact] of impacts) {
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push(i + 1, impact * boost);
    }
  });

  db.exec(SCHEMA);
  const insertPassage = db.prepare('INSERT INTO passage (n, id, kind, title, section, text, code, context, url, date) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const insertTerm = db.prepare('INSERT INTO term (term, id, reversed, passages) VALUES (?, ?, ?, ?)');
  const insertPosting = db.prepare('INSERT INTO posting (term, passage, impact) VALUES (?, ?, ?)');
  const insertLatest = db.prepare('INSERT INTO latest_news (n, id, heading, url, date) VALUES (?, ?, ?, ?, ?)');
  const insertEmbargo = db.prepare('INSERT INTO embargo (kind, n, at) VALUES (?, ?, ?)');
  db.transaction(() => {
    passages.forEach((p, i) => insertPassage.run(i + 1, p.id, p.kind, p.title, p.section, p.text, JSON.stringify(p.code), p.context, p.url ?? null, p.date ?? null));
    // Sorted, so that term ids and the posting table's key grow together (appends, no page splits).
    const vocabulary = [...postings.keys()].sort();
    vocabulary.forEach((term, id) => {
      const list = postings.get(term)!;
      insertTerm.run(term, id, reversedTerm(term), list.length / 2);
      for (let j = 0; j < list.length; j += 2) insertPosting.run(id, list[j]!, list[j + 1]!);
    });
    published.forEach((doc, i) => insertLatest.run(i + 1, doc.id, doc.heading, `/news/${doc.id}`, doc.createdAt.toISOString().slice(0, 10)));
    for (const [kind, n, at] of embargoes) insertEmbargo.run(kind, n, at);
    db.exec(INDEXES);
  })();
  db.pragma(`user_version = ${INDEX_FORMAT}`);
}

/**
 * The passages and latest-news rows of scheduled articles (published after `builtAt`), each with
 * the instant it may be answered from: [kind, number, ms since the epoch].
 */
function embargoesOf(published: readonly NewsDoc[], perArticle: readonly Passage[][], builtAt: number | undefined): Array<['passage' | 'latest', number, number]> {
  const rows: Array<['passage' | 'latest', number, number]> = [];
  let first = 1;
  published.forEach((doc, i) => {
    const at = doc.createdAt.getTime();
    const count = perArticle[i]!.length;
    if (builtAt !== undefined && at > builtAt) {
      rows.push(['latest', i + 1, at]);
      for (let n = first; n < first + count; n++) rows.push(['passage', n, at]);
    }
    first += count;
  });
  return rows;
}

/** The index as the bytes of a SQLite file (what `astro build` writes). */
export function buildIndexImage(corpus: Corpus): Buffer {
  const db = new Database(':memory:');
  try {
    writeAssistantIndex(db, corpus);
    return db.serialize();
  } finally {
    db.close();
  }
}
