/**
 * The OpenAPI 3.1 description of both interfaces (docs/interface.md sections 2, 3, 5 and 6),
 * assembled here from the operations each feature publishes beside its schemas
 * (`src/features/<name>/<name>.openapi.ts`), so the published contract cannot describe a field
 * the code does not have. Served prebuilt at /openapi.json, rendered at /docs/api, and used by
 * the contract tests to check real responses.
 */
import { createDocument } from 'zod-openapi';
import { ChatRequest } from '../features/chat/chat-request.ts';
import { sendChatMessage } from '../features/chat/chat.openapi.ts';
import { ContactPayload } from '../features/contact/contact-payload.ts';
import { getContactChallenge, submitContact } from '../features/contact/contact.openapi.ts';
import { contactSubmissionWebhook } from '../features/contact/contact-webhook.openapi.ts';
import { listNews } from '../features/news/news.openapi.ts';
import { NewsArticle } from '../features/news/schema.ts';
import { SellersDocument } from '../features/sellers/schema.ts';
import { getSellersJson } from '../features/sellers/sellers.openapi.ts';
import { DataResponse } from '../features/stats/data-record.ts';
import { getDailyStats } from '../features/stats/stats.openapi.ts';
import { DataError, Problem } from '../lib/http-error.ts';
import { PATHS } from '../lib/paths.ts';
import { API_VERSION, apiContext, type OpenApiOptions } from './context.ts';
import { getLiveness, getOpenApiDocument, getReadiness } from './operations.openapi.ts';

export { API_VERSION, type OpenApiOptions };

/** The optional integrator key of the data interface (RFC 6750 bearer token; `npm run api-keys`). */
const API_KEY_SCHEME = {
  type: 'http',
  scheme: 'bearer',
  description:
    'Optional integrator key, issued by the operator (`npm run api-keys -- create`). With it, the key\'s own per-minute and daily quotas apply instead of the client address\'s; an unknown, revoked or malformed key is refused with 401.',
} as const;

/** Every operation the document describes, in reading order. */
export const OPERATION_IDS = ['listNews', 'submitContact', 'getContactChallenge', 'sendChatMessage', 'getSellersJson', 'getDailyStats', 'getOpenApiDocument', 'getLiveness', 'getReadiness'] as const;

/** The generated document (zod-openapi's OpenAPI object type). */
export type OpenApiDocument = ReturnType<typeof createDocument>;

export function createOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const context = apiContext(options);
  const { siteUrl, dataUrl } = context;
  const site = { url: siteUrl, description: 'Site interface: news, contact, assistant chat and sellers.json.' };
  const data = {
    url: dataUrl,
    description: dataUrl === siteUrl ? 'Community data interface: daily statistics (served from the site origin in this deployment).' : 'Community data interface: daily statistics.',
  };

  return createDocument({
    openapi: '3.1.0',
    info: {
      title: `${options.siteName} public API`,
      version: API_VERSION,
      summary: 'News, contact, site assistant, sellers.json and the community data interface.',
      description:
        'Two HTTP interfaces of one service. The **site interface** lists news, accepts contact requests, streams replies of the site assistant and publishes the sellers.json file; its errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`. ' +
        `The **community data interface** (\`${PATHS.dataPrefix}\`) returns daily statistics; its errors are \`{code, message}\` with codes SVC1005 and SVC1010.\n\n` +
        'Every site response carries RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and RateLimit-Policy; a 429 adds Retry-After and X-RateLimit-Scope. ' +
        'Every data response carries X-RateLimit-Remaining, X-RateLimit-Reset and X-Daily-Quota-Remaining; its 429 adds Retry-After. ' +
        'Refusals made before rate limiting carry neither: 431 (request line and headers over 16 KiB) and 405 to a method the server does not know. ' +
        'Every response but a 431 carries X-Request-Id; quote it when reporting a problem. ' +
        'No operation needs credentials; the community data interface optionally takes an API key (`Authorization: Bearer ...`) whose own, higher limits then apply.',
    },
    servers: [site, data],
    tags: [
      { name: 'Site', description: 'The site interface.' },
      { name: 'Community data', description: 'The community data interface: aggregated daily statistics, public.' },
      { name: 'Operations', description: 'For operators and tooling: this document and the health probes. Not rate limited.' },
    ],
    paths: {
      [PATHS.news]: { servers: [site], get: listNews(context) },
      [PATHS.contact]: { servers: [site], post: submitContact(context) },
      [PATHS.contactChallenge]: { servers: [site], get: getContactChallenge(context) },
      [PATHS.chat]: { servers: [site], post: sendChatMessage(context) },
      [PATHS.sellers]: { servers: [site], get: getSellersJson(context) },
      [PATHS.data]: { servers: [data], get: getDailyStats(context) },
      [PATHS.openapi]: { servers: [site], get: getOpenApiDocument(context) },
      [PATHS.healthz]: { servers: [site], get: getLiveness() },
      [PATHS.readyz]: { servers: [site], get: getReadiness() },
    },
    // What this service sends: OpenAPI 3.1 webhooks (section 4.8.1).
    webhooks: { contactSubmission: contactSubmissionWebhook() },
    // Named components. Registered here rather than with `.meta({ id })` in the feature files,
    // which would change what z.toJSONSchema gives their other users. Nested schemas (Seller,
    // DataRecord, ChatMessage...) stay inline under their JSON Schema `title`; Problem and
    // DataError are used through per-status copies and listed whole for reference.
    components: {
      schemas: { NewsArticle, ContactPayload, ChatRequest, SellersDocument, DataResponse, Problem, DataError },
      securitySchemes: { apiKey: API_KEY_SCHEME },
    },
  });
}
