/**
 * The numbers of the help pages come from the running configuration: the pages hold `{{fact}}`
 * placeholders (src/features/chat/help-facts.ts), the build refuses unknown ones with the file
 * and line, the index searches the words around them, and the assistant fills them in.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/app/config.ts';
import { composeReply, retrieve } from '../../../../src/features/chat/built-in-assistant.ts';
import { FACT_NAMES, fillFacts, HelpPageError, helpFacts, helpPageProblems, bodyStartLine } from '../../../../src/features/chat/help-facts.ts';
import { buildIndexImage } from '../../../../src/features/chat/index-writer.ts';
import { AssistantIndex } from '../../../../src/features/chat/assistant-index.ts';
import { buildInstructions } from '../../../../src/features/chat/llm-assistant.server.ts';
import type { KnowledgeDoc } from '../../../../src/features/chat/passages.ts';
import { terms } from '../../../../src/features/chat/text-terms.ts';
import { chatServices } from '../../../helpers/chat-harness.ts';
import { parseFrontmatter, siteKnowledge, siteNews } from '../../../helpers/site-corpus.ts';

const site = AssistantIndex.fromCorpus({ news: siteNews(), knowledge: siteKnowledge() });
const changed = chatServices({ RATE_LIMIT_PAGE_MINUTE: '123', RATE_LIMIT_IPV6_PREFIX: '48', RATE_LIMIT_DATA_DAY: '7500' }).config;
const defaults = chatServices().config;
const user = (content: string) => ({ role: 'user' as const, content });
const reply = (question: string, config = changed) => composeReply([user(question)], site, { config }).text;

describe('the assistant states the limits the running configuration sets', () => {
  it('gives the page limit and the IPv6 network of this configuration', () => {
    expect(reply('What are the rate limits?')).toContain('Pages: 123 requests a minute.');
    expect(reply('How are IPv6 clients counted?')).toContain('counted as its /48 network');
    expect(reply('What are the rate limits of the data API?')).toContain('60 requests a minute and 7,500 a day');
  });

  it('gives the defaults when nothing is configured, never a number typed into a page', () => {
    expect(reply('What are the rate limits?', defaults)).toContain('Pages: 240 requests a minute.');
    expect(reply('How are IPv6 clients counted?', defaults)).toContain('counted as its /56 network');
  });

  it('hands the LLM the passages filled in, without a placeholder', () => {
    const instructions = buildInstructions(retrieve([user('What are the rate limits? How are IPv6 clients counted?')], site, { config: changed }), 'https://meridian.test');
    expect(instructions).toContain('Pages: 123 requests a minute.');
    expect(instructions).toContain('/48 network');
    expect(instructions).not.toContain('{{');
  });

  it('writes a fact in English with thousands separators', () => {
    const facts = helpFacts(changed);
    expect(fillFacts('{{data.perDay}} a day, /{{ ipv6.prefixLength }}', facts)).toBe('7,500 a day, /48');
    expect(helpFacts(changed)).toBe(facts);
  });
});

describe('the search index', () => {
  it('holds the words around a placeholder, not the names of the facts', () => {
    // The last part of each name ("perMinute", "prefixLength") is a word no page writes out.
    for (const term of new Set(FACT_NAMES.flatMap((fact) => terms(fact.split('.').at(-1)!)))) {
      expect(site.search(new Map([[term, 1]])), term).toEqual([]);
    }
    const [top] = site.search(new Map([['ipv6', 1], ['network', 1]]), 1);
    expect(top?.passage.id).toBe('kb:rate-limits#0');
    // The passage keeps its placeholders until it is quoted.
    expect(top?.passage.text).toContain('/{{ipv6.prefixLength}} network');
  });
});

describe('placeholders are checked when the index is built', () => {
  const page = (body: string, extra: Partial<KnowledgeDoc> = {}): KnowledgeDoc => ({ id: 'limits', title: 'Limits', body, file: 'content/assistant/limits.md', bodyLine: 5, ...extra });
  const buildError = (docs: KnowledgeDoc[]): string => {
    try {
      buildIndexImage({ news: [], knowledge: docs });
    } catch (error) {
      expect(error).toBeInstanceOf(HelpPageError);
      return (error as Error).message;
    }
    throw new Error('the build accepted the pages');
  };

  it('fails the build on an unknown fact, naming the file, the line and the nearest name', () => {
    expect(buildError([page('Pages:\n\n- {{pages.perMinut}} requests a minute.\n- {{nothing.like.this}}.')])).toMatchInlineSnapshot(`
      "Help pages (content/assistant) have placeholder mistakes:
        content/assistant/limits.md:7: {{pages.perMinut}} is not a known fact (src/features/chat/help-facts.ts); did you mean {{pages.perMinute}}?
        content/assistant/limits.md:8: {{nothing.like.this}} is not a known fact (src/features/chat/help-facts.ts); known facts: pages.perMinute, site.perMinute, assistant.perMinute, assistant.perDay, contact.perHour, contact.perDay, data.perMinute, data.perDay, ipv6.prefixLength, data.maxRangeDays, apiKeys.defaultPerMinute, apiKeys.defaultPerDay, apiKeys.revokedWithinSeconds, assistant.maxMessageChars, assistant.maxMessages, assistant.maxBodyBytes, contact.maxMessageChars, contact.maxBodyBytes"
    `);
  });

  it('fails the build on stray braces and on placeholders in the frontmatter', () => {
    const message = buildError([page('At most {{data.maxRangeDays} days.\nA {pages.perMinute}} limit.', { summary: 'Up to {{data.maxRangeDays}} days.' })]);
    expect(message).toMatchInlineSnapshot(`
      "Help pages (content/assistant) have placeholder mistakes:
        content/assistant/limits.md: the summary holds "{{" or "}}"; placeholders are filled in the page body only
        content/assistant/limits.md:5: a "{{" or "}}" that is not a whole placeholder; write {{name}} on one line (braces cannot be written otherwise)
        content/assistant/limits.md:6: a "{{" or "}}" that is not a whole placeholder; write {{name}} on one line (braces cannot be written otherwise)"
    `);
  });

  it("counts lines as the page's file does", () => {
    const file = join(import.meta.dirname, '../../../../content/assistant/rate-limits.md');
    const source = readFileSync(file, 'utf8').replace('{{pages.perMinute}}', '{{pages.perMinit}}');
    const { body } = parseFrontmatter(source);
    const line = source.split('\n').findIndex((text) => text.includes('{{pages.perMinit}}')) + 1;
    expect(line).toBeGreaterThan(5);
    const problems = helpPageProblems([{ id: 'rate-limits', title: 'Rate limits', body, file: 'content/assistant/rate-limits.md', bodyLine: bodyStartLine(source, body) }]);
    expect(problems).toEqual([expect.stringMatching(new RegExp(`^content/assistant/rate-limits\\.md:${line}: \\{\\{pages\\.perMinit\\}\\} is not a known fact`))]);
  });

  it("accepts every placeholder of the site's help pages", () => {
    expect(helpPageProblems(siteKnowledge())).toEqual([]);
    expect(siteKnowledge().some((doc) => doc.body.includes('{{'))).toBe(true);
  });
});

/** Whole numbers written in a text ("300", "5,000", "/64"), not parts of dates, versions or codes. */
function writtenNumbers(text: string): number[] {
  return [...text.matchAll(/(?<![\w.,-])(\d{1,3}(?:,\d{3})+|\d+)(?![\w-]|[.,]\d)/g)].map((match) => Number(match[1]!.replaceAll(',', '')));
}

describe('the guard against numbers typed into a help page', () => {
  it('finds numbers as a reader sees them, and not inside dates, versions or codes', () => {
    expect(writtenNumbers('one /64 network; 300 requests, 5,000 a day.')).toEqual([64, 300, 5000]);
    expect(writtenNumbers('endDate=2026-07-31, version 1.0, code SVC1005, {{data.perDay}}')).toEqual([]);
  });

  it('finds none in a help page that equals a default of the configuration or a fact', () => {
    const config = loadConfig({});
    const guarded = new Set([
      ...Object.values(config).filter((value): value is number => typeof value === 'number'),
      ...Object.values(helpFacts(config)),
    ]);
    expect(guarded).toContain(240);
    expect(guarded).toContain(56);
    expect(guarded).toContain(31);
    for (const doc of siteKnowledge()) {
      const typed = writtenNumbers([doc.title, doc.summary ?? '', doc.body].join('\n')).filter((n) => guarded.has(n));
      expect(typed, `${doc.file} states ${typed.join(', ')}: write the {{fact}} instead (src/features/chat/help-facts.ts)`).toEqual([]);
    }
  });
});
