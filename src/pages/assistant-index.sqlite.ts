/**
 * The site assistant's search index, written by `astro build` from the content collections (a
 * prerendered endpoint is where the build can read them). Not a public file: the build moves it
 * from dist/client to dist/server (src/app/assistant-index-integration.ts), where the server
 * opens it at start-up.
 */
import type { APIRoute } from 'astro';
import { siteCorpus } from '../features/chat/content-corpus.server.ts';
import { buildIndexImage } from '../features/chat/index-writer.ts';

export const prerender = true;

export const GET: APIRoute = async () => new Response(new Uint8Array(buildIndexImage(await siteCorpus())), { headers: { 'content-type': 'application/vnd.sqlite3' } });
