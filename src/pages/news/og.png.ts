/**
 * `/news/og.png`: the news section's link-preview picture, the og:image of articles too old to
 * have their own (OG_IMAGE_ARTICLES in src/features/news/article-meta.ts). Rendered at build.
 */
import type { APIRoute } from 'astro';
import { SITE_NAME } from '../../components/site.ts';
import { OG_IMAGE_TYPE } from '../../features/news/article-meta.ts';
import { renderOgImage } from '../../features/news/og-image.ts';

export const prerender = true;

export const GET: APIRoute = async () => {
  const png = await renderOgImage({
    heading: `${SITE_NAME} news`,
    subheading: 'Product changes, transparency reports and market data.',
    siteName: SITE_NAME,
    footer: 'News archive',
  });
  return new Response(png, { headers: { 'Content-Type': OG_IMAGE_TYPE } });
};
