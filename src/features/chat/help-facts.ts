/**
 * The numbers the help pages (content/assistant/*.md) state that this deployment decides: the
 * rate limits, the IPv6 network that counts as one client, the data API's range and API-key
 * quotas, the assistant's message bounds. A page never types one of them: it writes a placeholder,
 * and the assistant fills it in from the running configuration whenever it quotes the passage
 * (a built-in reply, or the context handed to an LLM). An operator who sets
 * RATE_LIMIT_PAGE_MINUTE=123 gets an assistant that says 123, with no rebuild.
 *
 * The syntax is `{{name}}` (spaces inside the braces allowed), where `name` is one of the facts
 * that `HelpFacts` declares below: letters and digits in dot-separated parts, e.g.
 * `{{pages.perMinute}}` or `/{{ipv6.prefixLength}}`. A fact is a whole number and is written
 * in English with thousands separators ("5,000"). Placeholders go in the page body only, prose
 * or code blocks; a title or summary is quoted as it stands (the sources list and `Link` header
 * carry it). An unknown name, a placeholder in the frontmatter, or a `{{` or `}}` in any other
 * form fails `astro build` with the file and line (index-writer.ts checks every page).
 *
 * The search index keeps each passage with its placeholders and indexes the words around them
 * (`withoutPlaceholders`): "requests a minute" is found, the number itself is put in at answer
 * time because the build cannot know it.
 */
import { z } from 'zod';
import { DEFAULT_KEY_DAY, DEFAULT_KEY_MINUTE } from '../apikeys/api-key.ts';
import { CONTACT_LIMITS } from '../contact/contact-limits.ts';
import type { RateLimitSettings } from '../ratelimit/policies.ts';
import { MAX_RANGE_DAYS } from '../stats/date-range.ts';
import { CHAT_LIMITS } from './chat-request.ts';
import { boundedEditDistance } from '../../lib/edit-distance.ts';
import type { KnowledgeDoc } from './passages.ts';

/** A whole number a page states, what it counts, and where its value comes from. */
const fact = (description: string, source: string) => z.int().positive().meta({ description, source });

/**
 * Every fact a help page may name, each with where its value comes from: a variable of the
 * configuration (README "Configuration") or a constant of the code.
 */
export const HelpFacts = z.strictObject({
  'pages.perMinute': fact('Page requests a minute per client.', 'RATE_LIMIT_PAGE_MINUTE'),
  'site.perMinute': fact('Requests a minute per client to the site interface (news API, sellers.json), shared with the assistant and the contact form.', 'RATE_LIMIT_SITE_MINUTE'),
  'assistant.perMinute': fact('Assistant messages a minute per client.', 'RATE_LIMIT_CHAT_MINUTE'),
  'assistant.perDay': fact('Assistant messages per UTC day per client.', 'RATE_LIMIT_CHAT_DAY'),
  'contact.perHour': fact('Contact form submissions an hour per client.', 'RATE_LIMIT_CONTACT_HOUR'),
  'contact.perDay': fact('Contact form submissions per UTC day per client.', 'RATE_LIMIT_CONTACT_DAY'),
  'data.perMinute': fact('Data API requests a minute per client without an API key.', 'RATE_LIMIT_DATA_MINUTE'),
  'data.perDay': fact('Data API requests per UTC day per client without an API key.', 'RATE_LIMIT_DATA_DAY'),
  'ipv6.prefixLength': z.int().min(1).max(128).meta({ description: 'Length of the IPv6 network that counts as one client.', source: 'RATE_LIMIT_IPV6_PREFIX' }),
  'data.maxRangeDays': fact('Most days one data API request may span.', 'MAX_RANGE_DAYS (src/features/stats/date-range.ts)'),
  'apiKeys.defaultPerMinute': fact("A new API key's requests a minute unless set otherwise.", 'DEFAULT_KEY_MINUTE (src/features/apikeys/api-key.ts)'),
  'apiKeys.defaultPerDay': fact("A new API key's requests per UTC day unless set otherwise.", 'DEFAULT_KEY_DAY (src/features/apikeys/api-key.ts)'),
  'apiKeys.revokedWithinSeconds': fact('Seconds within which a revoked API key stops working.', 'API_KEY_CACHE_SECONDS'),
  'assistant.maxMessageChars': fact('Longest assistant message, in characters.', 'CHAT_LIMITS.maxContentChars (src/features/chat/chat-request.ts)'),
  'assistant.maxMessages': fact('Most messages of a conversation sent in one request.', 'CHAT_LIMITS.maxMessages (src/features/chat/chat-request.ts)'),
  'assistant.maxBodyBytes': fact('Largest assistant request body, in bytes.', 'CHAT_LIMITS.maxBodyBytes (src/features/chat/chat-request.ts)'),
  'contact.maxMessageChars': fact('Longest contact form message, in characters.', 'CONTACT_LIMITS.messageChars (src/features/contact/contact-limits.ts)'),
  'contact.maxBodyBytes': fact('Largest contact form request body, in bytes.', 'CONTACT_LIMITS.bodyBytes (src/features/contact/contact-limits.ts)'),
});
export type HelpFacts = z.infer<typeof HelpFacts>;
export type FactName = keyof HelpFacts;

export const FACT_NAMES = Object.keys(HelpFacts.shape) as FactName[];

/** The settings the facts are read from; src/app/config.ts's `Config` satisfies it. */
export interface HelpFactsConfig extends RateLimitSettings {
  RATE_LIMIT_IPV6_PREFIX: number;
  API_KEY_CACHE_SECONDS: number;
}

/** One configuration object (frozen for the process's life, src/app/services.ts) gives one set of facts. */
const computed = new WeakMap<HelpFactsConfig, HelpFacts>();

/** The facts as this configuration makes them. */
export function helpFacts(config: HelpFactsConfig): HelpFacts {
  let facts = computed.get(config);
  if (facts === undefined) {
    facts = HelpFacts.parse({
      'pages.perMinute': config.RATE_LIMIT_PAGE_MINUTE,
      'site.perMinute': config.RATE_LIMIT_SITE_MINUTE,
      'assistant.perMinute': config.RATE_LIMIT_CHAT_MINUTE,
      'assistant.perDay': config.RATE_LIMIT_CHAT_DAY,
      'contact.perHour': config.RATE_LIMIT_CONTACT_HOUR,
      'contact.perDay': config.RATE_LIMIT_CONTACT_DAY,
      'data.perMinute': config.RATE_LIMIT_DATA_MINUTE,
      'data.perDay': config.RATE_LIMIT_DATA_DAY,
      'ipv6.prefixLength': config.RATE_LIMIT_IPV6_PREFIX,
      'data.maxRangeDays': MAX_RANGE_DAYS,
      'apiKeys.defaultPerMinute': DEFAULT_KEY_MINUTE,
      'apiKeys.defaultPerDay': DEFAULT_KEY_DAY,
      'apiKeys.revokedWithinSeconds': config.API_KEY_CACHE_SECONDS,
      'assistant.maxMessageChars': CHAT_LIMITS.maxContentChars,
      'assistant.maxMessages': CHAT_LIMITS.maxMessages,
      'assistant.maxBodyBytes': CHAT_LIMITS.maxBodyBytes,
      'contact.maxMessageChars': CONTACT_LIMITS.messageChars,
      'contact.maxBodyBytes': CONTACT_LIMITS.bodyBytes,
    } satisfies HelpFacts);
    computed.set(config, facts);
  }
  return facts;
}

/** A placeholder as written: braces, optional spaces, and whatever stands between them. */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;
/** What a fact name looks like (no `_` or `*`: Markdown emphasis must not touch it). */
const NAME = /^[A-Za-z][A-Za-z0-9]*(?:\.[A-Za-z0-9]+)*$/;

function isFactName(name: string): name is FactName {
  return Object.hasOwn(HelpFacts.shape, name);
}

/** A fact written out: a whole number in English, thousands separated ("5,000"). */
export function formatFact(value: number): string {
  return value.toLocaleString('en');
}

/**
 * The text with every placeholder replaced by its fact. Only called on text the build has
 * checked (index-writer.ts), whose every name is known: an unknown one means an index built
 * by other code than this server's, and throws rather than show `{{...}}` to a visitor.
 */
export function fillFacts(text: string, facts: HelpFacts): string {
  if (!text.includes('{{')) return text;
  return text.replace(PLACEHOLDER, (_, name: string) => {
    if (!isFactName(name)) throw new Error(`the assistant index holds {{${name}}}, which is not a known fact: rebuild it with this server (npm run build)`);
    return formatFact(facts[name]);
  });
}

/** The text as the search index sees it: the words around each placeholder, not its name. */
export function withoutPlaceholders(text: string): string {
  return text.includes('{{') ? text.replace(PLACEHOLDER, ' ') : text;
}

/** One mistake in a help page, at a line of its file (1-based). */
export interface PlaceholderProblem {
  line: number;
  message: string;
}

/** The closest known name, for a "did you mean" (two edits at most). */
function closestFact(name: string): FactName | undefined {
  const chars = Array.from(name.toLowerCase());
  let best: { fact: FactName; distance: number } | undefined;
  for (const fact of FACT_NAMES) {
    const distance = boundedEditDistance(chars, Array.from(fact.toLowerCase()), 2);
    if (distance <= 2 && (best === undefined || distance < best.distance)) best = { fact, distance };
  }
  return best?.fact;
}

/**
 * The placeholder mistakes of a text whose first line is line `firstLine` of its file: unknown
 * names, names of the wrong shape, and braces that open or close no placeholder.
 */
export function placeholderProblems(text: string, firstLine = 1): PlaceholderProblem[] {
  const problems: PlaceholderProblem[] = [];
  text.split(/\r\n?|\n/).forEach((lineText, i) => {
    const line = firstLine + i;
    for (const [written, name] of lineText.matchAll(PLACEHOLDER)) {
      if (isFactName(name!)) continue;
      const near = NAME.test(name!) ? closestFact(name!) : undefined;
      const hint = near ? `did you mean {{${near}}}?` : `known facts: ${FACT_NAMES.join(', ')}`;
      problems.push({ line, message: `${written} is not a known fact (src/features/chat/help-facts.ts); ${hint}` });
    }
    const rest = lineText.replace(PLACEHOLDER, ' ');
    if (rest.includes('{{') || rest.includes('}}')) {
      problems.push({ line, message: 'a "{{" or "}}" that is not a whole placeholder; write {{name}} on one line (braces cannot be written otherwise)' });
    }
  });
  return problems;
}

/** Every placeholder mistake of the pages, one line each, `file:line: message`. */
export function helpPageProblems(pages: readonly KnowledgeDoc[]): string[] {
  const out: string[] = [];
  for (const page of pages) {
    const file = page.file ?? `help page "${page.id}"`;
    for (const [field, value] of [['title', page.title], ['summary', page.summary ?? '']] as const) {
      if (value.includes('{{') || value.includes('}}')) out.push(`${file}: the ${field} holds "{{" or "}}"; placeholders are filled in the page body only`);
    }
    for (const { line, message } of placeholderProblems(page.body, page.bodyLine ?? 1)) {
      out.push(`${file}:${line}${page.bodyLine === undefined ? ' (of the body)' : ''}: ${message}`);
    }
  }
  return out;
}

/** The line of `source` on which `body` (a part of it, the text after the frontmatter) starts. */
export function bodyStartLine(source: string, body: string): number | undefined {
  const at = body === '' ? -1 : source.indexOf(body);
  return at < 0 ? undefined : source.slice(0, at).split('\n').length;
}

/** A build of help pages with placeholder mistakes; the message lists each with file and line. */
export class HelpPageError extends Error {
  override name = 'HelpPageError';
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`Help pages (content/assistant) have placeholder mistakes:\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

/** Throw a HelpPageError naming every placeholder mistake of the pages, if there is one. */
export function assertHelpPages(pages: readonly KnowledgeDoc[]): void {
  const problems = helpPageProblems(pages);
  if (problems.length > 0) throw new HelpPageError(problems);
}
