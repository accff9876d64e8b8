/**
 * The built-in assistant: answers from the site's own passages, without a network. Pure: a
 * conversation and an index in, reply text out, so every answer is reproducible in a test.
 *
 * It never invents: an answer quotes the best-matching sentences of a passage and links to its
 * page; when nothing matches well enough it says it does not know and offers the contact form.
 * The numbers a help page takes from the configuration (`{{fact}}` placeholders, help-facts.ts)
 * are filled in from the configuration it is given before anything is quoted.
 */
import { formatDate } from '../../lib/calendar.ts';
import type { ChatMessage } from './chat-request.ts';
import { fillFacts, helpFacts, type HelpFacts, type HelpFactsConfig } from './help-facts.ts';
import type { AssistantIndex, SearchHit, WeightedTerms } from './assistant-index.ts';
import { passageTitle, sitePaths, type Passage } from './passages.ts';
import { distinctSources, type ChatSource } from './sources.ts';
import { sentences, terms, words } from './text-terms.ts';

export const CONTACT_PATH = '/contact';

/** Weight of terms from the visitor's earlier turns, against 1 for the newest message. */
export const EARLIER_TURN_WEIGHT = 0.3;

export type Intent = 'greeting' | 'thanks' | 'capabilities' | 'contact' | 'latest_news' | 'question';

export interface BuiltInReply {
  intent: Intent;
  /** False when the assistant could not ground an answer and said so. */
  grounded: boolean;
  /** Pages the reply links to, in order. */
  links: string[];
  /** The pages the answer was taken from (empty for small talk and "I don't know"). */
  sources: ChatSource[];
  text: string;
}

const GREETING = /^\s*(?:hi|hello|hey|hiya|howdy|greetings|good\s+(?:morning|afternoon|evening|day))\b[\s,!.]*(?:there|all|everyone|team|assistant|bot)?[\s,!.]*/i;
const THANKS = /^\s*(?:thanks|thank\s+you|thx|cheers|many\s+thanks|great,?\s+thanks?)\b/i;
const CAPABILITIES = /\b(?:what\s+can\s+you\s+(?:do|help)|who\s+are\s+you|what\s+are\s+you|how\s+can\s+you\s+help)\b|^\s*help\s*[?!.]*\s*$/i;
const CONTACT = new RegExp(
  [
    String.raw`\bcontact\s+(?:you|us|the\s+team|someone|somebody|sales|support|a\s+human|a\s+person)\b`,
    String.raw`\b(?:how|where)\s+(?:do|can|could|should)\s+i\s+contact\b`,
    String.raw`\bcontact\s+(?:details|info|information|address)\b`,
    String.raw`\bget\s+in\s+touch\b`,
    String.raw`\breach\s+(?:you|the\s+team|someone|somebody|a\s+human|a\s+person|sales|support)\b`,
    String.raw`\b(?:talk|speak)\s+(?:to|with)\s+(?:a\s+)?(?:human|person|someone|somebody|sales|support|the\s+team)\b`,
    String.raw`\bcustomer\s+(?:service|support)\b`,
    String.raw`^\s*contact\s*[?!.]*\s*$`,
  ].join('|'),
  'i',
);
const LATEST_NEWS = /\b(?:latest|recent|newest)\s+(?:news|articles?|posts?|updates?|announcements?)\b|\bwhat'?s\s+new\b|^\s*news\s*[?!.]*\s*$/i;
/** Words that ask for a "how to": show the passage's code example too. */
const HOW_TO = /\b(?:how|example|curl|command|call|request|fetch|use|query|download)\b/i;

/** Classify the newest message. `rest` is the message without a leading greeting. */
export function detectIntent(text: string): { intent: Intent; rest: string; greeted: boolean } {
  const greeting = GREETING.exec(text);
  const rest = greeting ? text.slice(greeting[0].length) : text;
  const greeted = greeting !== null;
  if (CONTACT.test(rest)) return { intent: 'contact', rest, greeted };
  if (LATEST_NEWS.test(rest)) return { intent: 'latest_news', rest, greeted };
  if (CAPABILITIES.test(rest)) return { intent: 'capabilities', rest, greeted };
  if (terms(rest).length === 0) {
    if (THANKS.test(rest)) return { intent: 'thanks', rest, greeted };
    if (greeted) return { intent: 'greeting', rest, greeted };
  }
  if (THANKS.test(rest) && terms(rest.replace(THANKS, '')).length === 0) return { intent: 'thanks', rest, greeted };
  return { intent: 'question', rest, greeted };
}

export interface ConversationQuery {
  /** All terms, weighted: the newest message 1, earlier visitor turns EARLIER_TURN_WEIGHT. */
  weighted: WeightedTerms;
  /** The terms the newest message is about (an earlier turn's when it has none of its own). */
  focus: ReadonlySet<string>;
}

/**
 * What the conversation is asking about. The newest message leads; the visitor's earlier turns
 * add context with a lower weight, so "and its limits?" after a question about the data API
 * finds the API's limits. A message with no terms of its own ("tell me more") takes them from
 * the previous question.
 */
export function conversationQuery(messages: readonly ChatMessage[], newest = messages.at(-1)?.content ?? ''): ConversationQuery {
  const weighted = new Map<string, number>();
  const own = new Set(terms(newest));
  const earlier = messages.slice(0, -1).filter((m) => m.role === 'user');
  let focus: Set<string> = own;
  if (own.size === 0) {
    for (let i = earlier.length - 1; i >= 0 && focus.size === 0; i--) focus = new Set(terms(earlier[i]!.content));
  }
  for (const term of focus) weighted.set(term, 1);
  // Most recent turns first, at most 4 of them: old topics should fade.
  for (const message of earlier.slice(-4).reverse()) {
    for (const term of terms(message.content)) if (!weighted.has(term)) weighted.set(term, EARLIER_TURN_WEIGHT);
  }
  return { weighted, focus };
}

/**
 * A hit answers the question when it matches enough of the question's own terms: at least one,
 * and half of them up to three. Matches on earlier turns' terms alone never ground an answer.
 */
export function isGrounded(hit: SearchHit, focus: ReadonlySet<string>): boolean {
  const needed = Math.max(1, Math.min(3, Math.ceil(focus.size / 2)));
  return hit.matched.filter((term) => focus.has(term)).length >= needed;
}

/** A hit as it is quoted: a help page's placeholders filled in with the facts. */
function filled(hit: SearchHit, facts: HelpFacts): SearchHit {
  const { passage } = hit;
  if (passage.kind !== 'kb') return hit;
  return { ...hit, passage: { ...passage, text: fillFacts(passage.text, facts), code: passage.code.map((code) => fillFacts(code, facts)) } };
}

/** The index's best hits for a query, help pages filled in from the configuration. */
function searchFilled(index: AssistantIndex, query: WeightedTerms, limit: number, config: HelpFactsConfig): SearchHit[] {
  const facts = helpFacts(config);
  return index.search(query, limit).map((hit) => filled(hit, facts));
}

export interface RetrieveOptions {
  /** Most passages returned (default 4). */
  limit?: number;
  /** The running configuration, which the help pages' numbers are filled in from (help-facts.ts). */
  config: HelpFactsConfig;
}

/** The grounded passages for the conversation, best first, filled in (the LLM's context, too). */
export function retrieve(messages: readonly ChatMessage[], index: AssistantIndex, { limit = 4, config }: RetrieveOptions): SearchHit[] {
  const query = conversationQuery(messages);
  return searchFilled(index, query.weighted, limit * 2, config)
    .filter((hit) => isGrounded(hit, query.focus))
    .slice(0, limit);
}

/** The pages of the hits, best first, each once (the LLM's sources: what it was given). */
export function sourcesOf(hits: readonly SearchHit[]): ChatSource[] {
  return distinctSources(hits.map(({ passage }) => ({ url: passage.url, title: passageTitle(passage) })));
}

/** Does a sentence mention a query term (same stem, or one a prefix of the other)? */
function mentions(sentenceTerms: readonly string[], term: string): boolean {
  return sentenceTerms.some((t) => t === term || (term.length >= 4 && t.startsWith(term)) || (t.length >= 4 && term.startsWith(t)));
}

/**
 * An extractive summary: the passage's sentences (or list items) that mention the most query
 * terms, in their original order, within `maxChars`. The first sentence if none mention any.
 */
export function summarise(passage: Passage, query: WeightedTerms, maxUnits = 2, maxChars = 360): string {
  const units = passage.text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => (line.startsWith('- ') ? [line] : sentences(line)));
  if (units.length === 0) return '';
  const scored = units.map((unit, position) => {
    const unitTerms = terms(unit);
    let score = 0;
    for (const [term, weight] of query) if (mentions(unitTerms, term)) score += weight;
    return { unit, position, score };
  });
  const ranked = scored.filter((s) => s.score > 0).toSorted((a, b) => b.score - a.score || a.position - b.position);
  const chosen: typeof scored = [];
  let length = 0;
  for (const candidate of ranked.length > 0 ? ranked : scored.slice(0, 1)) {
    if (chosen.length >= maxUnits) break;
    if (chosen.length > 0 && length + candidate.unit.length > maxChars) continue;
    chosen.push(candidate);
    length += candidate.unit.length;
  }
  chosen.sort((a, b) => a.position - b.position);
  return chosen.reduce((out, { unit }, i) => (i === 0 ? unit : out + (unit.startsWith('- ') || chosen[i - 1]!.unit.startsWith('- ') ? '\n' : ' ') + unit), '');
}

function label(passage: Passage): string {
  if (passage.kind === 'news') return `the article "${passage.title}"${passage.date ? ` (${formatDate(passage.date)})` : ''}`;
  return passage.section && passage.section !== passage.title ? `"${passage.title}: ${passage.section}"` : `"${passage.title}"`;
}

const HELLO = "Hello! I'm the site assistant. I can answer questions about our news, the public data API, sellers.json and how to reach the team. What would you like to know?";
const CAPABILITIES_TEXT =
  "I'm the site assistant: I answer from this site's own pages, its news articles and help pages, and link to where you can read more. Ask me what the service does, how to use the data API, what our sellers.json lists, or how to contact the team.";
const THANKS_TEXT = "You're welcome! Ask me anything else about the site, or reach the team at /contact.";

function dontKnow(greeted: boolean): string {
  return `${greeted ? 'Hello! ' : ''}I don't know: I couldn't find an answer to that in this site's news or help pages, and I'd rather not guess. The team can help through the contact form: ${CONTACT_PATH}`;
}

/** Example commands in the knowledge base write `https://<this site>`; show the real origin. */
function withSite(text: string, siteUrl: string | undefined): string {
  return siteUrl ? text.replaceAll('https://<this site>', siteUrl) : text;
}

export interface ComposeOptions {
  /** The site's public origin, put into example commands. */
  siteUrl?: string | undefined;
  /** The running configuration, which the help pages' numbers are filled in from (help-facts.ts). */
  config: HelpFactsConfig;
}

/** Compose the whole reply to the conversation's newest (user) message. */
export function composeReply(messages: readonly ChatMessage[], index: AssistantIndex, options: ComposeOptions): BuiltInReply {
  const newest = messages.at(-1)?.content ?? '';
  const { intent, rest, greeted } = detectIntent(newest);
  const hello = greeted ? 'Hello! ' : '';

  switch (intent) {
    case 'greeting':
      return { intent, grounded: true, links: [], sources: [], text: HELLO };
    case 'thanks':
      return { intent, grounded: true, links: [CONTACT_PATH], sources: [], text: THANKS_TEXT };
    case 'capabilities':
      return { intent, grounded: true, links: [], sources: [], text: hello + CAPABILITIES_TEXT };
    case 'latest_news': {
      const latest = index.latestNews(3);
      if (latest.length === 0) return { intent, grounded: false, links: [CONTACT_PATH], sources: [], text: `${hello}There are no news articles yet. For anything else, the team is at ${CONTACT_PATH}` };
      const list = latest.map((item) => `- ${item.heading} (${formatDate(item.date)}): ${item.url}`).join('\n');
      const sources = distinctSources(latest.map((item) => ({ url: item.url, title: item.heading })));
      return { intent, grounded: true, links: latest.map((item) => item.url), sources, text: `${hello}The latest news:\n${list}\n\nAll articles: /news` };
    }
    case 'contact': {
      // Ground the pointer in the knowledge base's own contact passage when there is one.
      const query = conversationQuery(messages, rest);
      const hit = searchFilled(index, query.weighted, 5, options.config).find((h) => h.passage.url === CONTACT_PATH);
      const detail = hit ? `\n\n${summarise(hit.passage, query.weighted)}` : '';
      const sources = hit ? distinctSources([{ url: CONTACT_PATH, title: passageTitle(hit.passage) }]) : [];
      return { intent, grounded: true, links: [CONTACT_PATH], sources, text: `${hello}You can reach the team through the contact form: ${CONTACT_PATH}${detail}` };
    }
    case 'question':
      break;
  }

  const query = conversationQuery(messages, rest);
  let hits = searchFilled(index, query.weighted, 8, options.config).filter((hit) => isGrounded(hit, query.focus));
  if (terms(rest).length === 0) {
    // A follow-up with no topic of its own ("tell me more"): skip what was already quoted.
    const said = messages.filter((m) => m.role === 'assistant').map((m) => m.content).join('\n');
    const fresh = hits.filter((hit) => !said.includes(summarise(hit.passage, query.weighted).slice(0, 80)));
    if (fresh.length > 0) hits = fresh;
  }
  const top = hits[0];
  if (!top) return { intent, grounded: false, links: [CONTACT_PATH], sources: [], text: dontKnow(greeted) };

  const summary = summarise(top.passage, query.weighted);
  const parts = [`${hello}From ${label(top.passage)}:\n${summary}`];
  if (HOW_TO.test(words(rest).join(' '))) {
    // A "how to" gets the page's example, from the best passage or another one of the same page.
    const example = hits.find((hit) => hit.passage.code.length > 0 && hit.passage.title === top.passage.title)?.passage.code[0];
    if (example) parts.push(withSite(example.length <= 600 ? example : `${example.slice(0, 600)}…`, options.siteUrl));
  }
  // An article links to itself; a knowledge passage to the page its quoted sentences name, else
  // to the passage's own link.
  const readMore = top.passage.kind === 'kb' ? (sitePaths(summary)[0] ?? top.passage.url) : top.passage.url;
  const links: string[] = [];
  // The sources are the passages quoted, each linked where the reply says to read more.
  const quoted: Array<{ url: string | undefined; title: string }> = [{ url: readMore, title: passageTitle(top.passage) }];
  if (readMore) {
    links.push(readMore);
    parts.push(`Read more: ${readMore}`);
  }
  // A second source from another page when it scores close to the best one.
  const second = hits.find((hit) => hit.passage.title !== top.passage.title && hit.passage.url && !links.includes(hit.passage.url) && hit.score >= top.score * 0.6);
  if (second?.passage.url) {
    links.push(second.passage.url);
    quoted.push({ url: second.passage.url, title: passageTitle(second.passage) });
    parts.push(`See also ${label(second.passage)}: ${second.passage.url}`);
  }
  return { intent, grounded: true, links, sources: distinctSources(quoted), text: parts.join('\n\n') };
}

/**
 * The reply cut into small pieces (a few words, keeping their whitespace) so it can be sent as
 * it is "typed": the first piece leaves at once and the widget shows the reply growing.
 */
export function replyChunks(text: string, wordsPerChunk = 3): string[] {
  const tokens = text.match(/\s*\S+\s*/g) ?? [];
  const chunks: string[] = [];
  for (let i = 0; i < tokens.length; i += wordsPerChunk) chunks.push(tokens.slice(i, i + wordsPerChunk).join(''));
  return chunks;
}
