// @ts-check
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';
import sitemap from '@astrojs/sitemap';
import { readdirSync, readFileSync } from 'node:fs';
import { assistantIndex } from './src/app/assistant-index-integration.ts';
import { devServerOptions, siteOrigin } from './src/app/astro-env.ts';
import { devServices } from './src/app/dev-integration.ts';
import { scheduleIntegration } from './src/app/schedule-integration.ts';
import { serverBundle } from './src/app/server-bundle.ts';
import { articleLastmods } from './src/features/news/article-meta.ts';
import { newsLinks } from './src/app/news-links-integration.ts';
import { staticManifestIntegration } from './src/server/precompress.ts';

// Pages and the read APIs are prerendered (`output: 'static'`); only routes that opt out with
// `export const prerender = false` run on the server. The Node adapter builds in middleware mode
// so that our own node:http edge (src/server/http.ts) sits in front of Astro's handler.
// Absolute URLs in /api/news, the feed, the sitemap and the OpenAPI servers are fixed at build
// time: from SITE_URL, or from the address the server will listen on (HOST, PORT), read with the
// server's rules (src/app/astro-env.ts), so `PORT=8080 npm run demo` links to port 8080.
const site = siteOrigin();

/** @param {import('@astrojs/sitemap').SitemapItem} item */
function withLastmod(item) {
  const dir = './content/news';
  lastmods ??= articleLastmods(readdirSync(dir).filter((f) => f.endsWith('.md')).map((f) => ({ id: f.slice(0, -3), text: readFileSync(`${dir}/${f}`, 'utf8') })));
  const lastmod = lastmods.get(new URL(item.url).pathname);
  return lastmod ? { ...item, lastmod } : item;
}
/** @type {Map<string, string> | undefined} */
let lastmods;

export default defineConfig({
  site,
  // Separate output/cache folders let several builds run side by side (tests, benchmarks).
  outDir: process.env.ASTRO_OUT_DIR || './dist',
  cacheDir: process.env.ASTRO_CACHE_DIR || './node_modules/.astro',
  output: 'static',
  adapter: node({ mode: 'middleware' }),
  // /stats/ renders per request, so the sitemap would not find it on its own. devServices gives
  // `astro dev` the services the production edge builds (src/app/dev-integration.ts); serverBundle
  // compiles the production server into the build (src/app/server-bundle.ts).
  // `lastmod` of the article pages and /news/ comes from the articles' publication times.
  // scheduleIntegration fixes the build's instant, moves what is scheduled out of dist/client into
  // dist/scheduled/ (each edition's sitemap with it) and writes the search index
  // (src/app/schedule-integration.ts, src/app/search-index.ts); after the sitemap, before the manifest.
  // assistantIndex moves the assistant's index out of the public files (first, before any other
  // hook looks at dist/client). newsLinks fails the build on an article's related link that no
  // page of the site answers. staticManifestIntegration comes last: it precompresses
  // dist/client and describes it for the server (src/server/precompress.ts) once every other
  // integration has written its files.
  integrations: [
    assistantIndex(),
    newsLinks(),
    sitemap({ customPages: [new URL('/stats/', site).href], serialize: withLastmod, filter: (page) => !new URL(page).pathname.startsWith('/scheduled-editions/') }),
    devServices(),
    serverBundle(),
    scheduleIntegration(),
    staticManifestIntegration(),
  ],
  // The adapter would otherwise enable filesystem sessions; nothing here uses them.
  session: false,
  // `astro dev` listens on PORT and HOST after validating the configuration as `npm start` does
  // (a bad value: one line, exit 78); --port and --host still win.
  server: devServerOptions,
  // CSP hashes for every script and style Astro emits (no 'unsafe-inline'). Astro's checkOrigin
  // (refusing cross-site form posts) is off: the write endpoints accept JSON only, which a
  // cross-site form cannot send, and chat applies its own Origin policy; left on, it answers
  // non-JSON posts with a text/plain 403 before our handlers can give the spec's 415 problem.
  // Beyond Astro's script-src/style-src hashes: everything else from this origin only (CSP3
  // default-src), fetches only to our own APIs, and images from here or, as news frontmatter
  // allows, any https URL.
  security: {
    csp: { directives: ["default-src 'self'", "connect-src 'self'", "img-src 'self' https:"] },
    checkOrigin: false,
  },
  // Shiki writes inline style attributes, which the CSP (no 'unsafe-inline') would block.
  markdown: { syntaxHighlight: false },
  build: { format: 'directory' },
  // Astro's own messages go through the server's JSON logger at run time (one line each, request
  // text escaped, never a line of its own); the CLI keeps Astro's usual output (src/server/astro-log.ts).
  logger: { entrypoint: './src/server/astro-log.ts' },
  // /docs has no page of its own; visitors who trim the URL land on the API docs.
  redirects: { '/docs': '/docs/api/' },
  trailingSlash: 'ignore',
});
