/**
 * The assistant's corpus from Astro's content layer: published news and the knowledge base as
 * plain documents. Called where the content layer runs: by `astro build`, which writes the
 * index file from it (src/pages/assistant-index.sqlite.ts), and by `astro dev`, which builds the
 * same index in memory. The built server never calls it: it opens the file instead, so the
 * archive's bodies are not loaded into its memory.
 */
import { readFile } from 'node:fs/promises';
import { getCollection, type CollectionEntry } from 'astro:content';
import { bodyStartLine } from './help-facts.ts';
import type { Corpus } from './index-writer.ts';
import { AssistantIndex } from './assistant-index.ts';
import { buildInstant } from '../news/schedule.ts';

export async function siteCorpus(): Promise<Corpus> {
  const [news, assistant] = await Promise.all([getCollection('news', (entry) => !entry.data.draft), getCollection('assistant')]);
  return {
    news: news.map((entry) => ({
      id: entry.id,
      heading: entry.data.heading,
      subheading: entry.data.subheading,
      body: entry.body ?? '',
      createdAt: new Date(entry.data.createdAt),
      draft: entry.data.draft,
    })),
    knowledge: await Promise.all(assistant.map(knowledgeDoc)),
    // Scheduled articles are indexed with their instant and not answered from before it.
    builtAt: buildInstant(),
  };
}

/**
 * A help page, with its file and the line its body starts on, so that a placeholder mistake is
 * reported at the file's own line (help-facts.ts). Astro keeps the body without the frontmatter.
 */
async function knowledgeDoc(entry: CollectionEntry<'assistant'>) {
  const body = entry.body ?? '';
  const file = entry.filePath;
  const source = file === undefined ? undefined : await readFile(file, 'utf8').catch(() => undefined);
  return { id: entry.id, title: entry.data.title, summary: entry.data.summary, body, file, bodyLine: source === undefined ? undefined : bodyStartLine(source, body) };
}

let loading: Promise<AssistantIndex> | undefined;

/**
 * `astro dev`: the index built in memory once per dev server, from the collections as they are
 * when the first question comes (restart the dev server to index edited content). A failed build
 * is retried by the next caller.
 */
export function devAssistantIndex(): Promise<AssistantIndex> {
  loading ??= siteCorpus()
    .then((corpus) => AssistantIndex.fromCorpus(corpus))
    .catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
  return loading;
}
