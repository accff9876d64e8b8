/**
 * The OpenAPI 3.1 description of both interfaces (interface spec sections 2, 4, 7 and 8), built
 * by zod-openapi from the very zod schemas that validate requests and shape responses, so the
 * published contract cannot describe a field the code does not have. Served prebuilt at
 * /openapi.json, rendered at /docs/api, and used by the contract tests to check real responses.
 */
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { SITE_NAME } from '../../components/site.ts';
import { EnvSchema } from '../../app/config.ts';
import { DataError, Problem, type SiteProblemCode } from '../../lib/http-error.ts';
import { ChatRequest, CHAT_LIMITS, type FieldError as ChatFieldErrorShape } from '../chat/chat-request.ts';
import { CONTACT_LIMITS, ContactPayload, type FieldError as ContactFieldErrorShape } from '../contact/contact.ts';
import { NewsArticle } from '../news/schema.ts';
import { policiesFromConfig, type RateLimitConfig, type Window } from '../ratelimit/policies.ts';
import { SellersDocument } from '../sellers/schema.ts';
import { DataResponse } from '../stats/data-record.ts';
import { DataQuery, MAX_RANGE_DAYS } from '../stats/date-range.ts';
import { codeSamples } from './code-samples.ts';
import {
  chatErrors,
  chatExample,
  chatReplyExample,
  contactErrors,
  contactExample,
  dataErrors,
  dataExample,
  newsListExample,
  sellersExample,
  siteRateLimitedExample,
  type NamedExample,
} from './examples.ts';
import {
  CachingHeaders,
  ConditionalRequestHeaders,
  dataRateLimitHeaders,
  dataRefusedHeaders,
  NoStoreHeaders,
  PublicCorsHeaders,
  siteRateLimitHeaders,
  siteRefusedHeaders,
} from './headers.ts';

/** The published version of the site interface (interface spec section 9). */
export const API_VERSION = '1.0.0';

/** Every operation the document describes, in reading order. */
export const OPERATION_IDS = [
  'listNews',
  'submitContact',
  'sendChatMessage',
  'getSellersJson',
  'getDailyStats',
  'getOpenApiDocument',
  'getLiveness',
  'getReadiness',
] as const;
export type OperationId = (typeof OPERATION_IDS)[number];

/** The generated document (zod-openapi's OpenAPI object type). */
export type OpenApiDocument = ReturnType<typeof createDocument>;

export interface OpenApiOptions {
  /** Public origin of the site interface, e.g. https://meridian-exchange.example. */
  siteUrl: string | URL;
  /** Origin of the community data interface; the site's own origin in this deployment. */
  dataUrl?: string | URL;
  /** Rate-limit figures quoted in descriptions and examples; the configuration defaults otherwise. */
  limits?: RateLimitConfig;
}

// One entry of the `errors` extension of a 400 problem, one shape per operation. The `satisfies`
// lines below fail the type check if the handler's FieldError and these schemas ever differ.
const ContactFieldError = z
  .object({
    field: z.string().meta({ description: 'The body member, e.g. `work_email`; empty for the body as a whole.', examples: ['work_email'] }),
    message: z.string().meta({ description: 'What is wrong, in words a person can act on.', examples: ['Work email must be an email address such as ada@example.com.'] }),
    expected: z.string().meta({ description: 'What a valid value looks like.', examples: ['an email address such as ada@example.com, at most 254 characters'] }),
  })
  .meta({ id: 'ContactFieldError', description: 'One invalid field of the contact form.' });
const ChatFieldError = z
  .object({
    path: z.string().meta({ description: 'Where in the body, e.g. `messages[2].content`; empty for the body itself.', examples: ['messages'] }),
    message: z.string().meta({ description: 'What is wrong with it (reads on from the path).', examples: ['must end with a message from the user'] }),
  })
  .meta({ id: 'ChatFieldError', description: 'One invalid member of the chat request.' });

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
true satisfies Same<z.infer<typeof ContactFieldError>, ContactFieldErrorShape>;
true satisfies Same<z.infer<typeof ChatFieldError>, ChatFieldErrorShape>;

/** A problem body narrowed to what one status of one operation can carry. */
function problemSchema(status: number, codes: readonly SiteProblemCode[], extensions: z.ZodRawShape = {}) {
  return Problem.extend({
    status: z.literal(status).meta({ description: 'The HTTP status code of the response.' }),
    code: z.enum(codes as [SiteProblemCode, ...SiteProblemCode[]]).meta({ description: 'Stable machine-readable code; branch on this.' }),
    ...extensions,
  }).meta({ title: 'Problem', description: 'RFC 9457 problem details. Further extension members may be present.' });
}

type HeaderSchema = z.ZodObject<z.ZodRawShape>;

interface ProblemOptions {
  /** Every code this status can carry; the example names otherwise. */
  codes?: readonly SiteProblemCode[];
  /** Extension members this status adds. */
  extensions?: z.ZodRawShape;
}

/** A problem+json response; `examples` are keyed by their `code`. */
function problemResponse(
  description: string,
  status: number,
  examples: Record<string, NamedExample>,
  headers: HeaderSchema,
  options: ProblemOptions = {},
): ZodOpenApiResponseObject {
  const codes = options.codes ?? (Object.keys(examples) as SiteProblemCode[]);
  return {
    description,
    headers: headers.extend(NoStoreHeaders.shape),
    content: { 'application/problem+json': { schema: problemSchema(status, codes, options.extensions), examples } },
  };
}

/** The 400 of a JSON-body operation: bad syntax, no body, or invalid fields listed in `errors`. */
function badRequest(description: string, examples: Record<string, NamedExample>, headers: HeaderSchema, fieldError: z.ZodType): ZodOpenApiResponseObject {
  return problemResponse(description, 400, examples, headers, {
    codes: ['validation_failed', 'malformed_json', 'empty_body'],
    extensions: { errors: z.array(fieldError).optional().meta({ description: 'Each invalid field (with validation_failed).' }) },
  });
}

function dataErrorResponse(description: string, code: 'SVC1005' | 'SVC1010', examples: Record<string, NamedExample>, headers: HeaderSchema): ZodOpenApiResponseObject {
  return {
    description,
    headers: headers.extend(NoStoreHeaders.shape),
    content: {
      'application/json': {
        schema: DataError.extend({ code: z.literal(code).meta({ description: `Always \`${code}\` for this status.` }) }).meta({ title: 'DataError', description: 'Error body of the community data interface.' }),
        examples,
      },
    },
  };
}

function notModified(headers: HeaderSchema): ZodOpenApiResponseObject {
  return {
    description: 'Not Modified: the copy named in If-None-Match is still current (RFC 9110 section 15.4.5). No body.',
    headers: headers.extend(CachingHeaders.shape),
  };
}

function describeWindows(windows: readonly Window[]): string {
  const per = (w: Window) => (w.kind === 'utc-day' ? 'per UTC day' : w.periodSeconds === 60 ? 'per minute' : w.periodSeconds === 3600 ? 'per hour' : `per ${w.periodSeconds} s`);
  return windows.map((w) => `${w.limit.toLocaleString('en')} ${per(w)} (\`${w.name}\`)`).join(', ');
}

function originOf(url: string | URL): string {
  return new URL(url).origin;
}

export function createOpenApiDocument(options: OpenApiOptions): OpenApiDocument {
  const siteUrl = originOf(options.siteUrl);
  const dataUrl = originOf(options.dataUrl ?? options.siteUrl);
  const policies = policiesFromConfig(options.limits ?? EnvSchema.parse({}));

  const siteServer = { url: siteUrl, description: 'Site interface: news, contact, assistant chat and sellers.json.' };
  const dataServer = {
    url: dataUrl,
    description: dataUrl === siteUrl ? 'Community data interface: daily statistics (served from the site origin in this deployment).' : 'Community data interface: daily statistics.',
  };

  const site = siteRateLimitHeaders(policies.site);
  const refused = (windows: readonly Window[], pathname: string): ZodOpenApiResponseObject => {
    const scope = windows.at(-1)!.name;
    return problemResponse(
      'Too Many Requests: a rate limit of this route is used up. Wait Retry-After seconds before retrying; X-RateLimit-Scope names the exhausted window.',
      429,
      { rate_limited: { summary: `The ${scope} window is spent`, value: siteRateLimitedExample(scope, 6, pathname) } },
      siteRefusedHeaders(windows),
      {
        extensions: {
          scope: z.enum(windows.map((w) => w.name) as [string, ...string[]]).meta({ description: 'The exhausted window (as X-RateLimit-Scope).' }),
          retryAfter: z.int().min(1).meta({ description: 'Seconds to wait (as Retry-After).' }),
        },
      },
    );
  };

  const listNews: ZodOpenApiOperationObject = {
    operationId: 'listNews',
    tags: ['Site'],
    summary: 'List news articles',
    description:
      'Every published article, newest first: metadata only, without the article body. The list is prebuilt at deploy time; use If-None-Match with the ETag to revalidate cheaply. HEAD is answered too.\n\n' +
      `Rate limit (defaults): ${describeWindows(policies.site)} per client.`,
    requestParams: { header: ConditionalRequestHeaders },
    responses: {
      '200': {
        description: 'The articles, newest first.',
        headers: site.extend(CachingHeaders.shape).extend(PublicCorsHeaders.shape),
        content: { 'application/json': { schema: z.array(NewsArticle).meta({ description: 'News articles, newest first.' }), example: newsListExample } },
      },
      '304': notModified(site),
      '429': refused(policies.site, '/api/news'),
    },
    'x-codeSamples': codeSamples({ method: 'GET', url: `${siteUrl}/api/news` }),
  };

  const getSellersJson: ZodOpenApiOperationObject = {
    operationId: 'getSellersJson',
    tags: ['Site'],
    summary: 'Get the sellers.json file',
    description:
      'The seller transparency file in the open sellers.json 1.0 format (IAB Tech Lab): every seller account authorised to sell through this exchange. `version` is the version of that format, not of this API.\n\n' +
      `Rate limit (defaults): ${describeWindows(policies.site)} per client.`,
    requestParams: { header: ConditionalRequestHeaders },
    responses: {
      '200': {
        description: 'The sellers.json document.',
        headers: site.extend(CachingHeaders.shape).extend(PublicCorsHeaders.shape),
        content: { 'application/json': { schema: SellersDocument, example: sellersExample } },
      },
      '304': notModified(site),
      '429': refused(policies.site, '/sellers.json'),
    },
    'x-codeSamples': codeSamples({ method: 'GET', url: `${siteUrl}/sellers.json` }),
  };

  const contactHeaders = siteRateLimitHeaders(policies.contact);
  const submitContact: ZodOpenApiOperationObject = {
    operationId: 'submitContact',
    tags: ['Site'],
    summary: 'Send a contact request',
    description:
      'Stores a contact request for the team. The answer is 200 only once the request is durably stored; if storage fails, 502 and nothing was stored. ' +
      'Send an Idempotency-Key to make retries safe: the same key with the same content is stored once.\n\n' +
      `Body: UTF-8 JSON, at most ${CONTACT_LIMITS.bodyBytes.toLocaleString('en')} bytes. Rate limit (defaults): ${describeWindows(policies.contact)} per client.`,
    requestParams: {
      header: z.object({
        'Idempotency-Key': z
          .string()
          .min(1)
          .max(255)
          .optional()
          .meta({ description: 'A unique value per submission, such as a UUID; a retry with the same key and content is not stored twice.', examples: ['5b0f6f0e-3c1d-4e6b-9a55-1f2a0c7d9e41'] }),
      }),
    },
    requestBody: { required: true, content: { 'application/json': { schema: ContactPayload, example: contactExample } } },
    responses: {
      '200': {
        description: 'Stored.',
        headers: contactHeaders.extend(NoStoreHeaders.shape).extend({
          'Idempotent-Replayed': z.literal('true').optional().meta({ description: 'Present when this Idempotency-Key had already been stored: nothing new was written.' }),
        }),
        content: {
          'application/json': {
            schema: z.object({ success: z.boolean().meta({ description: 'Always true: the request is stored.' }) }).meta({ description: 'The contact request is stored.' }),
            example: { success: true },
          },
        },
      },
      '400': badRequest('Bad Request: fields invalid or missing (each listed in `errors`), malformed JSON, an empty body or a bad Idempotency-Key.', contactErrors[400]!, contactHeaders, ContactFieldError),
      '413': problemResponse('Content Too Large: the body is over the limit.', 413, contactErrors[413]!, contactHeaders),
      '415': problemResponse('Unsupported Media Type: the body is not UTF-8 JSON, or is compressed.', 415, contactErrors[415]!, contactHeaders),
      '422': problemResponse('Unprocessable Content: the Idempotency-Key was used before for different content.', 422, contactErrors[422]!, contactHeaders),
      '429': refused(policies.contact, '/api/contact'),
      '502': problemResponse('Bad Gateway: the request could not be stored (the database failed); nothing was stored, retry later.', 502, contactErrors[502]!, contactHeaders),
    },
    'x-codeSamples': codeSamples({ method: 'POST', url: `${siteUrl}/api/contact`, body: contactExample }),
  };

  const chatHeaders = siteRateLimitHeaders(policies.chat);
  const sendChatMessage: ZodOpenApiOperationObject = {
    operationId: 'sendChatMessage',
    tags: ['Site'],
    summary: 'Ask the site assistant',
    description:
      'Answers the last message of the conversation with a plain-text reply, streamed as it is written. ' +
      'Browsers send Origin themselves; pages of origins the operator has not allowed get 403, and so do requests without Origin unless the operator allows them (CHAT_ALLOW_NO_ORIGIN).\n\n' +
      `Body: JSON, at most ${CHAT_LIMITS.maxBodyBytes.toLocaleString('en')} bytes, ${CHAT_LIMITS.maxMessages} messages of ${CHAT_LIMITS.maxContentChars.toLocaleString('en')} characters. ` +
      `Rate limit (defaults): ${describeWindows(policies.chat)} per client.`,
    requestParams: {
      header: z.object({
        Origin: z
          .string()
          .optional()
          .meta({ description: 'The calling page\'s origin (RFC 6454); browsers set it. Must be an allowed origin.', examples: [siteUrl] }),
      }),
    },
    requestBody: { required: true, content: { 'application/json': { schema: ChatRequest, example: chatExample } } },
    responses: {
      '200': {
        description: 'The reply, streamed as plain text while it is written. A failure after the first byte ends the text early.',
        headers: chatHeaders.extend(NoStoreHeaders.shape),
        content: { 'text/plain': { schema: z.string().meta({ description: 'The assistant\'s reply (UTF-8 text).' }), example: chatReplyExample } },
      },
      '400': badRequest('Bad Request: the messages payload is invalid (each problem listed in `errors`), malformed or missing.', chatErrors[400]!, chatHeaders, ChatFieldError),
      '403': problemResponse('Forbidden: the request\'s origin is not allowed to use the assistant.', 403, chatErrors[403]!, chatHeaders),
      '413': problemResponse('Content Too Large: the body is over the limit.', 413, chatErrors[413]!, chatHeaders),
      '415': problemResponse('Unsupported Media Type: the body is not JSON.', 415, chatErrors[415]!, chatHeaders),
      '429': refused(policies.chat, '/api/chat'),
    },
    'x-codeSamples': codeSamples({
      method: 'POST',
      url: `${siteUrl}/api/chat`,
      headers: { Origin: siteUrl },
      body: { messages: [{ role: 'user', content: 'How do I get July 2026 as JSON?' }] },
      streamed: true,
    }),
  };

  const data = dataRateLimitHeaders(policies.data);
  const getDailyStats: ZodOpenApiOperationObject = {
    operationId: 'getDailyStats',
    tags: ['Community data'],
    summary: 'Get Data: daily statistics for a date range',
    description:
      `One record per day of the range with transaction count, impression count and revenue. Both dates are required, YYYY-MM-DD (UTC days), endDate not before startDate, at most ${MAX_RANGE_DAYS} days counting both ends. ` +
      'Days not materialised yet (today, the future) are absent. No credentials are needed.\n\n' +
      `Limits (defaults): ${describeWindows(policies.data)} per client. Watch X-RateLimit-Remaining and X-Daily-Quota-Remaining, back off exponentially after a 429, and cache responses: ranges of settled days may be reused for a day (see Cache-Control) and revalidated with If-None-Match.`,
    requestParams: { query: DataQuery, header: ConditionalRequestHeaders },
    responses: {
      '200': {
        description: 'The records of the range, ascending by date.',
        headers: data.extend(CachingHeaders.shape).extend(PublicCorsHeaders.shape),
        content: { 'application/json': { schema: DataResponse, example: dataExample } },
      },
      '304': notModified(data),
      '400': dataErrorResponse('Bad Request (SVC1005): a parameter is missing or invalid; the message names the rule.', 'SVC1005', dataErrors[400]!, data),
      '429': dataErrorResponse('Too Many Requests (SVC1010): the rate limit or the daily quota is exceeded. Wait Retry-After seconds.', 'SVC1010', dataErrors[429]!, dataRefusedHeaders(policies.data)),
    },
    'x-codeSamples': codeSamples({ method: 'GET', url: `${dataUrl}/api/v1/public/data?startDate=2026-07-01&endDate=2026-07-31`, includeHeaders: true }),
  };

  const getOpenApiDocument: ZodOpenApiOperationObject = {
    operationId: 'getOpenApiDocument',
    tags: ['Operations'],
    summary: 'Get this OpenAPI document',
    description: 'This description, OpenAPI 3.1, prebuilt with the site. Not rate limited.',
    requestParams: { header: ConditionalRequestHeaders },
    responses: {
      '200': {
        description: 'The OpenAPI document.',
        headers: CachingHeaders.extend(PublicCorsHeaders.shape),
        content: {
          'application/json': {
            schema: z
              .looseObject({ openapi: z.string().regex(/^3\.1\.\d+$/), info: z.looseObject({ version: z.literal(API_VERSION) }), paths: z.record(z.string(), z.unknown()) })
              .meta({ description: 'An OpenAPI 3.1 document.' }),
          },
        },
      },
      '304': notModified(z.object({})),
    },
    'x-codeSamples': codeSamples({ method: 'GET', url: `${siteUrl}/openapi.json` }),
  };

  const probeHeaders = z.object({ 'Cache-Control': z.literal('no-store').meta({ description: 'Never cached.' }) });
  const database = z.enum(['sqlite', 'postgres']).meta({ description: 'The database engine in use.' });
  const getLiveness: ZodOpenApiOperationObject = {
    operationId: 'getLiveness',
    tags: ['Operations'],
    summary: 'Liveness probe',
    description: 'Answers as long as the process serves requests; checks nothing else. Not rate limited.',
    responses: {
      '200': {
        description: 'The process is alive.',
        headers: probeHeaders,
        content: {
          'application/json': {
            schema: z.object({ status: z.literal('ok'), uptimeSeconds: z.int().nonnegative().meta({ description: 'Seconds since the process started.' }) }),
            example: { status: 'ok', uptimeSeconds: 86_400 },
          },
        },
      },
    },
  };
  const getReadiness: ZodOpenApiOperationObject = {
    operationId: 'getReadiness',
    tags: ['Operations'],
    summary: 'Readiness probe',
    description: 'Ready when the database answers; route traffic elsewhere on 503. Not rate limited.',
    responses: {
      '200': {
        description: 'Ready: the database answers.',
        headers: probeHeaders,
        content: { 'application/json': { schema: z.object({ status: z.literal('ready'), database }), example: { status: 'ready', database: 'sqlite' } } },
      },
      '503': {
        description: 'Not ready: the database does not answer.',
        headers: probeHeaders,
        content: {
          'application/json': {
            // The reason is logged, not published: it can name hosts and paths.
            schema: z.object({ status: z.literal('unavailable'), database }),
            example: { status: 'unavailable', database: 'postgres' },
          },
        },
      },
    },
  };

  return createDocument({
    openapi: '3.1.0',
    info: {
      title: `${SITE_NAME} public API`,
      version: API_VERSION,
      summary: 'News, contact, site assistant, sellers.json and the community data interface.',
      description:
        'Two HTTP interfaces of one service. The **site interface** lists news, accepts contact requests, streams replies of the site assistant and publishes the sellers.json file; its errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`. ' +
        'The **community data interface** (`/api/v1/public`) returns daily statistics; its errors are `{code, message}` with codes SVC1005 and SVC1010.\n\n' +
        'Every site response carries RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset and RateLimit-Policy; a 429 adds Retry-After and X-RateLimit-Scope. ' +
        'Every data response carries X-RateLimit-Remaining, X-RateLimit-Reset and X-Daily-Quota-Remaining; its 429 adds Retry-After. Every response carries X-Request-Id; quote it when reporting a problem. ' +
        'No operation needs credentials.',
    },
    servers: [siteServer, dataServer],
    tags: [
      { name: 'Site', description: 'The site interface.' },
      { name: 'Community data', description: 'The community data interface: aggregated daily statistics, public.' },
      { name: 'Operations', description: 'For operators and tooling: this document and the health probes. Not rate limited.' },
    ],
    paths: {
      '/api/news': { servers: [siteServer], get: listNews },
      '/api/contact': { servers: [siteServer], post: submitContact },
      '/api/chat': { servers: [siteServer], post: sendChatMessage },
      '/sellers.json': { servers: [siteServer], get: getSellersJson },
      '/api/v1/public/data': { servers: [dataServer], get: getDailyStats },
      '/openapi.json': { servers: [siteServer], get: getOpenApiDocument },
      '/healthz': { servers: [siteServer], get: getLiveness },
      '/readyz': { servers: [siteServer], get: getReadiness },
    },
    // Named components. Registered here rather than with `.meta({ id })` in the feature files,
    // which would change what z.toJSONSchema gives their other users. Nested schemas (Seller,
    // DataRecord, ChatMessage...) stay inline under their JSON Schema `title`; Problem and
    // DataError are used through per-status copies and listed whole for reference.
    components: { schemas: { NewsArticle, ContactPayload, ChatRequest, SellersDocument, DataResponse, Problem, DataError } },
  });
}
