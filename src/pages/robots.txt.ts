/**
 * robots.txt (RFC 9309), prerendered so the edge serves it as a static file. Built here rather
 * than kept in public/ because the Sitemap line must be an absolute URL on the deployed origin
 * (sitemaps.org protocol), which only `site` (SITE_URL at build time) knows.
 *
 * Everything a reader sees may be crawled. /api/ is not: its answers are JSON for programs, the
 * data interface is rate-limited and quota-bound per client, and without parameters it only
 * answers 400, so crawling it wastes both sides' budget. The people-facing copies are crawlable
 * (/news/, /rss.xml, /stats/), and /sellers.json stays open because buyers' crawlers fetch it
 * (IAB sellers.json 1.0).
 */
import type { APIRoute } from 'astro';

export const prerender = true;

/** The file's text for a site origin (`undefined` when no site is configured: no Sitemap line). */
export function robotsTxt(site: URL | undefined): string {
  const lines = ['User-agent: *', 'Allow: /', 'Disallow: /api/'];
  if (site) lines.push('', `Sitemap: ${new URL('sitemap-index.xml', site).href}`);
  return `${lines.join('\n')}\n`;
}

export const GET: APIRoute = ({ site }) =>
  new Response(robotsTxt(site), { headers: { 'content-type': 'text/plain; charset=utf-8' } });
