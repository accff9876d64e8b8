/**
 * `getSellersJson` (GET /sellers.json) for the OpenAPI document, from the SellersDocument
 * schema the file is validated with.
 */
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { siteOperation, type ApiContext } from '../../lib/openapi/api-context.ts';
import { prebuiltFileOperation } from '../../lib/openapi/prebuilt-file.ts';
import { PATHS } from '../../lib/paths.ts';
import { SellersDocument } from './schema.ts';

export const sellersExample: SellersDocument = {
  contact_email: 'sellers@meridian-exchange.example',
  contact_address: 'Meridian Ad Exchange Ltd, 40 Bank Street, London E14 5NR, United Kingdom',
  version: '1.0',
  identifiers: [{ name: 'TAG-ID', value: '4f2a8c1e9b7d3a60' }],
  sellers: [
    { seller_id: 'pub-1001', seller_type: 'PUBLISHER', name: 'Harbour Daily Media Ltd', domain: 'harbourdaily.example' },
    {
      seller_id: 'int-2002',
      seller_type: 'INTERMEDIARY',
      name: 'Relay Yield Partners BV',
      domain: 'relayyield.example',
      is_passthrough: 1,
      comment: 'Passthrough: the upstream publishers control their accounts with us directly',
    },
    { seller_id: 'pub-1004', seller_type: 'PUBLISHER', is_confidential: 1, comment: "Individual publisher; identity confidential at the seller's request" },
  ],
};

export function getSellersJson(context: ApiContext): ZodOpenApiOperationObject {
  return prebuiltFileOperation({
    ...siteOperation(
      'getSellersJson',
      'Get the sellers.json file',
      'The seller transparency file in the open sellers.json 1.0 format (IAB Tech Lab): every seller account authorised to sell through this exchange. `version` is the version of that format, not of this API.\n\n',
      context.policies.site,
    ),
    pathname: PATHS.sellers,
    siteUrl: context.siteUrl,
    windows: context.policies.site,
    body: { description: 'The sellers.json document.', schema: SellersDocument, example: sellersExample },
  });
}
