/** What the assistant's search (assistant-index.ts) takes and gives. */
import type { Passage } from './passages.ts';

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
