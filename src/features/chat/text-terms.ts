/**
 * Words in, search terms out: the one normalisation used both to index passages and to read
 * questions, so that "sellers", "Seller's" and "seller" meet. English only, like the site.
 */

/** Function words that say nothing about what a question (or a passage) is about. */
const STOPWORDS = new Set(
  (
    'a about above after again all also am an and any are as at be because been before being below between both but by can could ' +
    'did do does doing done down during each even ever few for from further get gets got had has have having he her here hers him his ' +
    'how i if in into is it its itself just know let like me might more most much must my no nor not now of off on once only or other our ' +
    'ours out over own please really same say see she should so some such tell than thank thanks that the their theirs them then there ' +
    'these they this those through to too under until up us very want was way we were what when where which while who whom why will ' +
    'with would yes you your yours yourself hi hello hey ok okay'
  ).split(' '),
);

/** The one stop-word list, for the index and for questions alike. */
export function isStopword(word: string): boolean {
  return STOPWORDS.has(word);
}

/** Light suffix stripping (no dictionary): enough to join plurals and -ing/-ed forms. */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith("'s")) word = word.slice(0, -2);
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us') && !word.endsWith('is')) return word.slice(0, -1);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4) return word.slice(0, -2);
  return word;
}

/** Lower-cased words of a text: letters and digits, keeping inner dots/hyphens out. */
export function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+(?:'[a-z]+)?/gu) ?? [];
}

/** Searchable terms of a text: words minus stopwords, stemmed. Repeats kept (callers dedupe). */
export function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of words(text)) {
    if (STOPWORDS.has(word)) continue;
    const stemmed = stem(word);
    if (stemmed.length > 1 || /\d/.test(stemmed)) out.push(stemmed);
  }
  return out;
}

/** Split prose into sentences; keeps the terminating punctuation. */
export function sentences(text: string): string[] {
  return (
    text
      .replace(/\s+/g, ' ')
      .trim()
      // A sentence ends at . ! ? followed by a space and a capital, digit, quote or bracket:
      // good enough for our own prose, and it keeps "e.g. sellers.json" in one piece.
      .split(/(?<=[.!?])\s+(?=[A-Z0-9"'(\[])/u)
      .map((s) => s.trim())
      .filter(Boolean)
  );
}
