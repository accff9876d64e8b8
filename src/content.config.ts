/**
 * Content collections, validated by `astro build` (and `astro sync`/`astro check`): a file that
 * breaks its schema fails the build with the file, the field and what is expected.
 * The schemas live with their features; this file only wires loaders to them.
 */
import { defineCollection } from 'astro:content';
import { glob } from 'astro/loaders';
import { z } from 'zod';
import { newsLoader } from './features/news/loader.server.ts';
import { NewsFrontmatter } from './features/news/schema.ts';
import { sellersLoader } from './features/sellers/loader.server.ts';
import { SELLERS_FILE, SellersFileSchema } from './features/sellers/validate.ts';

/** content/news/<id>.md: one article per file; the file name is the article id. */
const news = defineCollection({
  loader: newsLoader('./content/news'),
  schema: NewsFrontmatter,
});

/** content/sellers.json: one entry, id "content/sellers.json", holding the whole document. */
const sellers = defineCollection({
  loader: sellersLoader(SELLERS_FILE),
  schema: SellersFileSchema,
});

/** content/assistant/<id>.md: pages the site assistant answers from. */
const assistant = defineCollection({
  loader: glob({ pattern: '*.md', base: './content/assistant' }),
  // Not strict: the assistant feature may add fields of its own without touching this file.
  schema: z.object({
    /** Title of the page, used when the assistant cites it. */
    title: z.string({ error: 'title is required: a short title for this page' }).trim().min(1, 'title must not be empty'),
    /** One or two sentences on what the page covers. */
    summary: z.string({ error: 'summary must be text' }).trim().min(1, 'summary must not be empty').optional(),
    /** Words a visitor may ask with that the page does not use, searched like the summary. */
    keywords: z.string({ error: 'keywords must be text: words separated by spaces or commas' }).trim().optional(),
    /**
     * The site page this help page describes (`/stats`): every answer from it links there, and
     * its title and headings weigh as the page's own (docs/editors.md, "The site assistant").
     */
    page: z
      .string({ error: 'page must be a site path such as /stats' })
      .regex(/^\/(?!\/)[\w\-./]*$/, 'page must be a site path such as /stats')
      .optional(),
  }),
});

export const collections = { news, sellers, assistant };
