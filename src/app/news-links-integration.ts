/**
 * Fails `astro build` when an article's related link points at a path of this site that nothing
 * answers (src/features/news/link-check.ts), naming every such file at once. Run once the pages
 * are written: a path is answered by a file of dist/client (a prerendered page, endpoint or
 * public file), by an on-demand route or a redirect of Astro's (matched by the route's pattern;
 * prerendered dynamic routes count only through the files they produced, so /news/nope/ does
 * not pass for /news/[id]), or by a path of the edge's own (/healthz).
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { AstroIntegration, IntegrationResolvedRoute } from 'astro';
import { deadSiteLinks, type LinkedArticle } from '../features/news/link-check.ts';
import { newsProblemsError } from '../features/news/news-problems.ts';
import { PATHS } from '../lib/paths.ts';

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

/** Whether the built site or a server route answers `pathname`. */
function answeredBy(client: URL, routes: readonly IntegrationResolvedRoute[]): (pathname: string) => boolean {
  const edgePaths = new Set<string>(Object.values(PATHS).map((path) => path.replace(/\/$/, '')));
  return (pathname) => {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return false;
    }
    const bare = decoded.replace(/\/+$/, '') || '/';
    const file = fileURLToPath(new URL(`.${bare}`, client));
    if (isFile(file) || isFile(`${file}/index.html`) || isFile(`${file}.html`)) return true;
    if (edgePaths.has(bare)) return true;
    return routes.some((route) => (!route.isPrerendered || route.type === 'redirect') && (route.patternRegex.test(bare) || route.patternRegex.test(`${bare}/`)));
  };
}

export function newsLinks(): AstroIntegration {
  let routes: readonly IntegrationResolvedRoute[] = [];
  let site = '';
  let client: URL | undefined;
  return {
    name: 'adtech:news-links',
    hooks: {
      'astro:routes:resolved': (options) => {
        routes = options.routes;
      },
      'astro:config:done': ({ config }) => {
        site = config.site ?? '';
        client = config.build.client;
      },
      'astro:build:done': ({ logger }) => {
        if (!client || !site) throw new Error('adtech:news-links: astro:build:done came before astro:config:done, or no site is configured');
        const listed = new URL(`.${PATHS.news}`, client);
        const articles = JSON.parse(readFileSync(listed, 'utf8')) as LinkedArticle[];
        const problems = deadSiteLinks(articles, site, answeredBy(client, routes));
        if (problems.length > 0) throw newsProblemsError(problems);
        logger.info(`related links of ${articles.length} articles lead to pages of the site`);
      },
    },
  };
}
