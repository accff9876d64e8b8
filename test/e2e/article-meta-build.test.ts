/**
 * What `npm run build` writes for link previews and search engines, read from ./dist: each
 * article page's Open Graph / X card tags and JSON-LD NewsArticle, its og:image (a real
 * 1200x630 PNG, also served by the server as image/png), and the sitemap's lastmod. The list of
 * articles comes from the prebuilt /api/news, the contract's own list of published articles.
 */
import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, testEnv, type RunningServer } from '../helpers/server.ts';

const CLIENT = 'dist/client';

interface ListedArticle {
  id: string;
  heading: string;
  subheading: string | null;
  createdAt: string;
}

const articles = JSON.parse(readFileSync(join(CLIENT, 'api/news'), 'utf8')) as ListedArticle[];

/** content="..." of <meta property|name="key">, HTML entities for quotes and ampersands decoded. */
function metaContent(html: string, key: string): string | undefined {
  const tag = new RegExp(`<meta (?:property|name)="${key.replace(/[.:]/g, '\\$&')}" content="([^"]*)"`).exec(html);
  return tag?.[1]?.replace(/&#39;/g, "'").replace(/&quot;/g, '"').replace(/&amp;/g, '&');
}

/** Width, height, bit depth and colour type from a PNG's IHDR chunk (PNG spec, 11.2.2). */
function pngHeader(bytes: Buffer): { width: number; height: number } {
  expect(bytes.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  expect(bytes.readUInt32BE(8)).toBe(13);
  expect(bytes.subarray(12, 16).toString('latin1')).toBe('IHDR');
  expect(bytes.subarray(bytes.length - 8, bytes.length - 4).toString('latin1')).toBe('IEND');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

const page = (id: string) => readFileSync(join(CLIENT, 'news', id, 'index.html'), 'utf8');

describe('the build, for each published article', () => {
  it('has articles to check, and no og.png for anything unpublished', () => {
    expect(articles.length).toBeGreaterThan(3);
    const withImage = readdirSync(join(CLIENT, 'news'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(CLIENT, 'news', entry.name, 'og.png')))
      .map((entry) => entry.name);
    expect(withImage.sort()).toEqual(articles.map((a) => a.id).sort());
  });

  it.each(articles.map((a) => [a.id, a] as const))('%s: og:* and X card tags', (id, article) => {
    const html = page(id);
    const url = metaContent(html, 'og:url');
    expect(url).toMatch(new RegExp(`^https?://[^/]+/news/${id}/$`));
    expect(html).toContain(`<link rel="canonical" href="${url}">`);
    expect(metaContent(html, 'og:title')).toBe(article.heading);
    expect(metaContent(html, 'og:type')).toBe('article');
    expect(metaContent(html, 'og:site_name')).toBe('Meridian Ad Exchange');
    expect(metaContent(html, 'og:description')).toBe(article.subheading ?? article.heading);
    expect(metaContent(html, 'og:image')).toBe(new URL(`/news/${id}/og.png`, url).href);
    expect(metaContent(html, 'og:image:width')).toBe('1200');
    expect(metaContent(html, 'og:image:height')).toBe('630');
    expect(metaContent(html, 'og:image:type')).toBe('image/png');
    expect(metaContent(html, 'twitter:card')).toBe('summary_large_image');
    expect(metaContent(html, 'article:published_time')).toBe(article.createdAt);
  });

  it('has the news section picture, for articles beyond the newest ones, as a 1200x630 PNG', () => {
    expect(pngHeader(readFileSync(join(CLIENT, 'news', 'og.png')))).toEqual({ width: 1200, height: 630 });
  });

  it.each(articles.map((a) => [a.id, a] as const))('%s: og.png is a 1200x630 PNG', (id) => {
    expect(pngHeader(readFileSync(join(CLIENT, 'news', id, 'og.png')))).toEqual({ width: 1200, height: 630 });
  });

  it.each(articles.map((a) => [a.id, a] as const))('%s: JSON-LD NewsArticle', (id, article) => {
    const html = page(id);
    const blocks = [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).not.toMatch(/[<>]/);
    const ld = JSON.parse(blocks[0]!) as Record<string, unknown>;
    expect(ld).toMatchObject({
      '@context': 'https://schema.org',
      '@type': 'NewsArticle',
      headline: article.heading,
      datePublished: article.createdAt,
      image: expect.arrayContaining([metaContent(html, 'og:image')]),
      author: [{ '@type': 'Organization', name: 'Meridian Ad Exchange' }],
      publisher: { '@type': 'Organization', name: 'Meridian Ad Exchange' },
      mainEntityOfPage: { '@type': 'WebPage', '@id': metaContent(html, 'og:url') },
    });
  });

  it('gives other pages og:url, og:site_name and a summary card, with type website', () => {
    const html = readFileSync(join(CLIENT, 'contact', 'index.html'), 'utf8');
    expect(metaContent(html, 'og:type')).toBe('website');
    expect(metaContent(html, 'og:url')).toMatch(/\/contact\/$/);
    expect(metaContent(html, 'og:site_name')).toBe('Meridian Ad Exchange');
    expect(metaContent(html, 'twitter:card')).toBe('summary');
    expect(metaContent(html, 'og:image')).toBeUndefined();
  });
});

describe('the sitemap', () => {
  const xml = readFileSync(join(CLIENT, 'sitemap-0.xml'), 'utf8');
  const entries = new Map([...xml.matchAll(/<url><loc>([^<]+)<\/loc>(?:<lastmod>([^<]+)<\/lastmod>)?/g)].map((m) => [new URL(m[1]!).pathname, m[2]]));

  it('has each article with lastmod at its publication time', () => {
    for (const article of articles) {
      const lastmod = entries.get(`/news/${article.id}/`);
      expect(lastmod, article.id).toBeDefined();
      expect(Date.parse(lastmod!), article.id).toBe(Date.parse(article.createdAt));
    }
  });

  it('dates /news/ by its newest article, and leaves pages without a known date undated', () => {
    expect(Date.parse(entries.get('/news/')!)).toBe(Math.max(...articles.map((a) => Date.parse(a.createdAt))));
    expect(entries.has('/contact/')).toBe(true);
    expect(entries.get('/contact/')).toBeUndefined();
  });
});

describe('served by the server', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(testEnv());
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('answers /news/<id>/og.png with the built PNG as image/png', async () => {
    const id = articles[0]!.id;
    const response = await fetch(`${server.url}/news/${id}/og.png`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(readFileSync(join(CLIENT, 'news', id, 'og.png')));
  });
});
