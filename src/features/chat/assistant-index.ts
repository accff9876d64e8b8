/**
 * Full-text search over the site's passages, read from the SQLite index that `astro build` writes
 * (index-writer.ts explains its tables and why scores are computed there). The server opens the
 * file once, read-only; memory is SQLite's bounded page cache, whatever the size of the archive.
 * `astro dev` and tests build the same index in memory from plain documents (`fromCorpus`).
 *
 * Searching is synchronous (better-sqlite3) and bounded: at most MAX_QUERY_TERMS terms of a
 * conversation, prefix and typo expansions for the first MAX_EXPANDED_TERMS of them, and at most
 * POSTINGS_PER_TERM passages read per searched word (the ones it matters most to), so a question
 * costs well under a millisecond at thousands of articles (README, "Assistant"). The file is
 * never written after the build, so a read never waits for a lock.
 */
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { boundedEditDistance } from '../../lib/edit-distance.ts';
import { INDEX_FORMAT, reversedTerm, writeAssistantIndex, type Corpus } from './index-writer.ts';
import type { Passage } from './passages.ts';
import { Embargoes } from './embargoes.ts';

export type { Corpus } from './index-writer.ts';

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

/**
 * Terms of a conversation looked up, in the query's order (the newest message's come first), and
 * how many of them are also expanded by prefix and typo: a pasted page of text is searched by
 * its words, without a vocabulary scan for each.
 */
export const MAX_QUERY_TERMS = 256;
export const MAX_EXPANDED_TERMS = 16;
/** Prefix matching joins "limit" and "limits": for terms of at least this many characters. */
const PREFIX_MIN_LENGTH = 4;
/** Longer words found by a term's prefix, shortest (closest) first. */
const MAX_PREFIX_EXPANSIONS = 8;
/**
 * A typo allowance only for longer words, where one edit rarely turns a word into another real
 * one: 20 % of the word's length, rounded (one edit from 6 letters, two from 8).
 */
const FUZZY_MIN_LENGTH = 6;
const FUZZY_RATIO = 0.2;
/** Words within the allowance that are searched, closest first. */
const MAX_FUZZY_EXPANSIONS = 4;
/** Vocabulary rows one prefix or suffix lookup may scan: bounds the work of a single term. */
const VOCABULARY_SCAN = 2048;
/** Weights of a prefix and a fuzzy match against an exact one (1), as the assistant's MiniSearch had them. */
const PREFIX_WEIGHT = 0.6;
const FUZZY_WEIGHT = 0.3;
/**
 * Passages read per searched word, highest impact first. A word held by more passages than this
 * (a common word, whose weight is small anyway) is then looked up for the best candidates only.
 */
export const POSTINGS_PER_TERM = 256;
/** Postings read per question at most: many searched words share it. */
const POSTINGS_PER_QUERY = 8192;
/** Candidates whose score is completed with the common words' impacts before the final ranking. */
const COMPLETED_CANDIDATES = 64;

/** Why an index file cannot be used; the server stops with one line naming the fix. */
export class AssistantIndexError extends Error {
  readonly code = 'ASSISTANT_INDEX_UNUSABLE';
  readonly file: string;
  /** As StaticManifestError's: no file at all (a build from before the index, or an interrupted one), or an unreadable one. */
  readonly reason: 'missing' | 'malformed';
  constructor(file: string, message: string, options?: ErrorOptions & { reason?: 'missing' | 'malformed' }) {
    super(message, options);
    this.name = 'AssistantIndexError';
    this.file = file;
    this.reason = options?.reason ?? 'malformed';
  }
}

/** A searched word: an indexed term derived from a query term, and what a match on it weighs. */
interface Derived {
  source: string;
  id: number;
  weight: number;
  passages: number;
}

interface Candidate {
  score: number;
  sources: string[];
}

export interface SearchOptions {
  /**
   * Read every posting of every searched word instead of each word's best ones: the exhaustive
   * ranking the bounded search is tested against (its cost grows with the archive).
   */
  exhaustive?: boolean;
  /** The clock scheduled articles are published by, ms since the epoch (default Date.now). */
  now?: () => number;
}


type PassageRow = [string, 'news' | 'kb', string, string, string, string, string, string | null, string | null];

export class AssistantIndex {
  readonly #db: Database.Database;
  readonly #size: number;
  readonly #exact: Database.Statement<[string], [string, number, number]>;
  readonly #prefix: Database.Statement<[{ from: string; to: string; scan: number; limit: number }], [string, number, number]>;
  readonly #similar: Database.Statement<[{ head: string; headEnd: string; tail: string; tailEnd: string; shortest: number; longest: number; scan: number }], [string, number, number]>;
  readonly #top: Database.Statement<[number, number], [number, number]>;
  readonly #some: Database.Statement<[number, string], [number, number]>;
  readonly #from: Database.Statement<[number, number], [number, number]>;
  /** Knowledge passages are numbered last, from this number on (index-writer.ts). */
  readonly #firstKnowledge: number;
  readonly #passage: Database.Statement<[number], PassageRow>;
  readonly #latest: Database.Statement<[number], NewsListing>;

  readonly #exhaustive: boolean;
  readonly #embargoes: Embargoes;

  private constructor(db: Database.Database, options: SearchOptions) {
    this.#db = db;
    this.#exhaustive = options.exhaustive ?? false;
    this.#embargoes = new Embargoes(db, options.now ?? Date.now);
    // Both through an index, never a scan of the passages, so opening costs the same whatever the
    // archive: passages are numbered 1..N, and knowledge passages are the ids `kb:...`.
    this.#size = (db.prepare('SELECT max(n) FROM passage').pluck().get() as number | null) ?? 0;
    this.#firstKnowledge = (db.prepare("SELECT min(n) FROM passage WHERE id >= 'kb:' AND id < 'kb;'").pluck().get() as number | null) ?? this.#size + 1;
    // Many terms in one statement (a JSON array): one call instead of one per term.
    this.#exact = db.prepare<[string], [string, number, number]>('SELECT term, id, passages FROM term WHERE term IN (SELECT value FROM json_each(?))').raw();
    // Longer terms that start with a term (`to` is the term followed by the last code point),
    // shortest first, among the first `scan` of them.
    this.#prefix = db
      .prepare<[{ from: string; to: string; scan: number; limit: number }], [string, number, number]>(
        'SELECT term, id, passages FROM (SELECT term, id, passages FROM term WHERE term > @from AND term < @to LIMIT @scan) ORDER BY length(term), term LIMIT @limit',
      )
      .raw();
    // Terms of a similar length that share the first or the last characters of a word.
    this.#similar = db
      .prepare<[{ head: string; headEnd: string; tail: string; tailEnd: string; shortest: number; longest: number; scan: number }], [string, number, number]>(
        `SELECT term, id, passages FROM (SELECT term, id, passages FROM term WHERE term >= @head AND term < @headEnd LIMIT @scan) WHERE length(term) BETWEEN @shortest AND @longest
         UNION
         SELECT term, id, passages FROM (SELECT term, id, passages FROM term WHERE reversed >= @tail AND reversed < @tailEnd LIMIT @scan) WHERE length(term) BETWEEN @shortest AND @longest`,
      )
      .raw();
    this.#top = db.prepare<[number, number], [number, number]>('SELECT passage, impact FROM posting WHERE term = ? ORDER BY impact DESC LIMIT ?').raw();
    this.#some = db.prepare<[number, string], [number, number]>('SELECT passage, impact FROM posting WHERE term = ? AND passage IN (SELECT value FROM json_each(?))').raw();
    this.#from = db.prepare<[number, number], [number, number]>('SELECT passage, impact FROM posting WHERE term = ? AND passage >= ?').raw();
    this.#passage = db.prepare<[number], PassageRow>('SELECT id, kind, title, section, text, code, context, url, date FROM passage WHERE n = ?').raw();
    this.#latest = db.prepare<[number], NewsListing>('SELECT id, heading, url, date FROM latest_news ORDER BY n LIMIT ?');
  }

  /** An index of the corpus, built in memory (`astro dev`, tests): the same tables as the file. */
  static fromCorpus(corpus: Corpus, options: SearchOptions = {}): AssistantIndex {
    const db = new Database(':memory:');
    writeAssistantIndex(db, corpus);
    return new AssistantIndex(db, options);
  }

  /**
   * Open the index file written by `astro build`, read-only. Opening reads only the schema:
   * start-up time and memory do not depend on the archive.
   */
  static open(file: string, options: Pick<SearchOptions, 'now'> = {}): AssistantIndex {
    if (!existsSync(file)) throw new AssistantIndexError(file, `the build has no assistant index (${file})`, { reason: 'missing' });
    let db: Database.Database | undefined;
    try {
      db = new Database(file, { readonly: true, fileMustExist: true });
      const format = db.pragma('user_version', { simple: true }) as number;
      if (format !== INDEX_FORMAT) throw new AssistantIndexError(file, `the assistant index (${file}) has format ${format}, this server reads format ${INDEX_FORMAT}`);
      // 4 MiB of SQLite page cache: the vocabulary and the common terms' postings stay in it,
      // the rest is read from the operating system's file cache.
      db.pragma('cache_size = -4096');
      return new AssistantIndex(db, options);
    } catch (error) {
      db?.close();
      if (error instanceof AssistantIndexError) throw error;
      throw new AssistantIndexError(file, `the assistant index (${file}) cannot be read: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  /** Number of passages. */
  get size(): number {
    return this.#size;
  }

  /** Published articles, newest first. */
  latestNews(limit: number): NewsListing[] {
    const hidden = this.#embargoes.hidden('latest');
    if (hidden.size === 0) return this.#latest.all(limit);
    const rows = this.#latest.all(limit + hidden.size);
    return rows.filter((_, i) => !hidden.has(i + 1)).slice(0, limit);
  }


  close(): void {
    this.#db.close();
  }

  /** Best passages for the weighted terms, best first. */
  search(query: WeightedTerms, limit = 5): SearchHit[] {
    if (query.size === 0 || limit <= 0) return [];
    const searched = [...query].slice(0, MAX_QUERY_TERMS);
    const indexed = new Map(this.#exact.all(JSON.stringify(searched.map(([term]) => term))).map(([term, id, passages]) => [term, { id, passages }]));
    const derived = searched.flatMap(([term, weight], i) => this.#derive(term, weight, indexed.get(term), i < MAX_EXPANDED_TERMS));
    if (derived.length === 0) return [];

    // Scores as MiniSearch sums them: each searched word's impact times its weight, per passage.
    const candidates = new Map<number, Candidate>();
    const hidden = this.#embargoes.hidden('passage');
    const credit = (passage: number, source: string, score: number) => {
      if (hidden.has(passage)) return;
      const candidate = candidates.get(passage);
      if (!candidate) candidates.set(passage, { score, sources: [source] });
      else {
        candidate.score += score;
        if (!candidate.sources.includes(source)) candidate.sources.push(source);
      }
    };
    // SQLite reads LIMIT -1 as no limit.
    const perTerm = this.#exhaustive ? -1 : Math.max(1, Math.min(POSTINGS_PER_TERM, Math.floor(POSTINGS_PER_QUERY / derived.length)));
    const truncated: Array<{ word: Derived; read: Set<number> }> = [];
    for (const word of derived) {
      const read = new Set<number>();
      for (const [passage, impact] of this.#top.all(word.id, perTerm)) {
        credit(passage, word.source, word.weight * impact);
        read.add(passage);
      }
      if (word.passages > read.size) truncated.push({ word, read });
    }
    // A common word was read for its best passages only. Knowledge passages (a few dozen) get
    // all of it, so a help page is always scored in full against news that merely mention the
    // same words; then the leading candidates get what it gives them, so their scores and
    // matched terms are whole before the final ranking.
    for (const { word, read } of truncated) {
      for (const [passage, impact] of this.#from.all(word.id, this.#firstKnowledge)) {
        if (!read.has(passage)) credit(passage, word.source, word.weight * impact);
      }
    }
    if (truncated.length > 0) {
      const leading = best(candidates, Math.max(COMPLETED_CANDIDATES, limit * 2)).filter(([passage]) => passage < this.#firstKnowledge);
      for (const { word, read } of truncated) {
        const missing = leading.filter(([passage]) => !read.has(passage)).map(([passage]) => passage);
        if (missing.length === 0) continue;
        for (const [passage, impact] of this.#some.all(word.id, JSON.stringify(missing))) credit(passage, word.source, word.weight * impact);
      }
    }
    return best(candidates, limit).map(([passage, { score, sources }]) => ({ passage: this.#passageAt(passage), score, matched: sources }));
  }

  /**
   * The indexed words a query term stands for, with their weights: the term itself, longer words
   * it is a prefix of, and words within its typo allowance (MiniSearch's weighting: closer
   * matches weigh more). A typo is found when the word keeps its first or its last characters
   * (a third of it, half for one edit), so one edit is always found.
   */
  #derive(term: string, termWeight: number, exact: { id: number; passages: number } | undefined, expand: boolean): Derived[] {
    const out: Derived[] = [];
    const seen = new Set<string>([term]);
    if (exact) out.push({ source: term, id: exact.id, passages: exact.passages, weight: termWeight });
    if (!expand) return out;
    const chars = Array.from(term);
    if (chars.length >= PREFIX_MIN_LENGTH) {
      for (const [word, id, passages] of this.#prefix.all({ from: term, to: `${term}\u{10FFFF}`, scan: VOCABULARY_SCAN, limit: MAX_PREFIX_EXPANSIONS })) {
        const length = Array.from(word).length;
        seen.add(word);
        out.push({ source: term, id, passages, weight: (termWeight * PREFIX_WEIGHT * length) / (length + 0.3 * (length - chars.length)) });
      }
    }
    const allowance = chars.length >= FUZZY_MIN_LENGTH ? Math.round(chars.length * FUZZY_RATIO) : 0;
    if (allowance > 0) {
      const keep = Math.max(3, Math.floor(chars.length / (allowance + 1)));
      const head = chars.slice(0, keep).join('');
      const tail = reversedTerm(chars.slice(-keep).join(''));
      const similar: Array<{ word: string; id: number; passages: number; distance: number }> = [];
      const rows = this.#similar.all({
        head,
        headEnd: `${head}\u{10FFFF}`,
        tail,
        tailEnd: `${tail}\u{10FFFF}`,
        shortest: chars.length - allowance,
        longest: chars.length + allowance,
        scan: VOCABULARY_SCAN,
      });
      for (const [word, id, passages] of rows) {
        // A longer word starting with the term is a prefix match, counted as one above.
        if (seen.has(word) || word.startsWith(term)) continue;
        const distance = boundedEditDistance(chars, Array.from(word), allowance);
        if (distance <= allowance) similar.push({ word, id, passages, distance });
      }
      similar.sort((a, b) => a.distance - b.distance || (a.word < b.word ? -1 : 1));
      for (const { word, id, passages, distance } of similar.slice(0, MAX_FUZZY_EXPANSIONS)) {
        const length = Array.from(word).length;
        out.push({ source: term, id, passages, weight: (termWeight * FUZZY_WEIGHT * length) / (length + distance) });
      }
    }
    return out;
  }

  #passageAt(n: number): Passage {
    const row = this.#passage.get(n);
    if (!row) throw new Error(`assistant index: passage ${n} is missing`);
    const [id, kind, title, section, text, code, context, url, date] = row;
    return { id, kind, title, section, text, code: JSON.parse(code) as string[], context, url: url ?? undefined, date: date ?? undefined };
  }
}

/**
 * The `k` best candidates by final score, best first: the summed score times the number of
 * query terms matched (MiniSearch's "quality"), so a passage that matches more of the question
 * leads; equal scores in passage order. One pass keeping the k best (k is small), rather than a
 * sort of every candidate.
 */
function best(candidates: ReadonlyMap<number, Candidate>, k: number): Array<[number, Candidate]> {
  const top: Array<[number, Candidate]> = [];
  const before = (score: number, passage: number, other: [number, Candidate]) => score > other[1].score || (score === other[1].score && passage < other[0]);
  for (const [passage, candidate] of candidates) {
    const score = candidate.score * candidate.sources.length;
    if (top.length === k) {
      if (!before(score, passage, top[k - 1]!)) continue;
      top.pop();
    }
    let at = top.length;
    while (at > 0 && before(score, passage, top[at - 1]!)) at--;
    top.splice(at, 0, [passage, { score, sources: candidate.sources }]);
  }
  return top;
}
