/**
 * `listNews` (GET /api/news) for the OpenAPI document, from the NewsArticle schema the build
 * validates every article with.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { siteOperation, type ApiContext } from '../../lib/openapi/api-context.ts';
import { prebuiltFileOperation } from '../../lib/openapi/prebuilt-file.ts';
import { PATHS } from '../../lib/paths.ts';
import { NewsArticle } from './schema.ts';

export const newsListExample: NewsArticle[] = [
  {
    id: 'community-data-api',
    heading: 'A free API for our daily market data',
    subheading: 'Transaction counts, impressions and revenue per day, as JSON, without an API key.',
    imageUrl: 'https://meridian-exchange.example/images/news/data-api.svg',
    link: 'https://meridian-exchange.example/docs/api',
    createdAt: '2026-08-04T16:00:00Z',
  },
  {
    id: 'supply-chain-object-required',
    heading: 'The SupplyChain object becomes mandatory for resellers',
    subheading: 'From 1 October, bid requests from intermediaries must carry a complete schain.',
    imageUrl: null,
    link: 'https://github.com/InteractiveAdvertisingBureau/openrtb/blob/main/supplychainobject.md',
    createdAt: '2026-07-27T14:15:00Z',
  },
];

export function listNews(context: ApiContext): ZodOpenApiOperationObject {
  return prebuiltFileOperation({
    ...siteOperation(
      'listNews',
      'List news articles',
      'Every published article, newest first: metadata only, without the article body. The list is prebuilt at deploy time; use If-None-Match with the ETag to revalidate cheaply. HEAD is answered too.\n\n',
      context.policies.site,
    ),
    pathname: PATHS.news,
    siteUrl: context.siteUrl,
    windows: context.policies.site,
    body: { description: 'The articles, newest first.', schema: z.array(NewsArticle).meta({ description: 'News articles, newest first.' }), example: newsListExample },
  });
}
