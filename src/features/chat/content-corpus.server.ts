/**
 * The assistant's corpus from Astro's content layer: `getCollection` works at run time in
 * on-demand routes because `astro build` serialises the validated collections (bodies included)
 * into the server bundle, so no Markdown is read or parsed per request.
 *
 * The index is built on first use and kept for the life of the process (content only changes
 * with a new build, hence a new process). Building it takes a few milliseconds for the current
 * content, well inside the first reply's budget (the server's warm-up request after listening
 * builds it ahead of the first visitor).
 */
import { getCollection } from 'astro:content';
import { KnowledgeIndex } from './knowledge-index.ts';

let loading: Promise<KnowledgeIndex> | undefined;

async function build(): Promise<KnowledgeIndex> {
  const [news, assistant] = await Promise.all([getCollection('news', (entry) => !entry.data.draft), getCollection('assistant')]);
  return KnowledgeIndex.fromCorpus({
    news: news.map((entry) => ({
      id: entry.id,
      heading: entry.data.heading,
      subheading: entry.data.subheading,
      body: entry.body ?? '',
      createdAt: new Date(entry.data.createdAt),
      draft: entry.data.draft,
    })),
    knowledge: assistant.map((entry) => ({ id: entry.id, title: entry.data.title, summary: entry.data.summary, body: entry.body ?? '' })),
  });
}

/** The site's index, built once; a failed build is retried by the next caller. */
export function loadKnowledgeIndex(): Promise<KnowledgeIndex> {
  loading ??= build().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
