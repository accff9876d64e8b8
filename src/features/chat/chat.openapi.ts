/**
 * `sendChatMessage` (POST /api/chat) for the OpenAPI document: the body is the ChatRequest
 * schema the route validates with, and the error examples are what its parser and origin
 * policy answer for bad input.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { FieldError } from '../../lib/field-error.ts';
import { siteOperation, type ApiContext } from '../../lib/openapi/api-context.ts';
import { codeSamples } from '../../lib/openapi/code-samples.ts';
import { errorBody, problemExample, thrownBody, type Examples } from '../../lib/openapi/examples.ts';
import { NoStoreHeaders, siteRateLimitHeaders } from '../../lib/openapi/headers.ts';
import { errorResponses, invalidBody, jsonRequestBody, methodNotAllowed, siteRateLimited } from '../../lib/openapi/responses.ts';
import { PATHS } from '../../lib/paths.ts';
import { CHAT_LIMITS, ChatRequest, parseChatRequest } from './chat-request.ts';
import { CHAT_ALLOW } from './chat.endpoint.ts';
import { originError } from './origin-policy.ts';
import { formatSourcesLink, SOURCE_LIMITS, SOURCE_REL } from './sources.ts';


export const chatExample: ChatRequest = {
  messages: [
    { role: 'user', content: 'Is there an API for your daily statistics?' },
    { role: 'assistant', content: `Yes: GET ${PATHS.data} returns one record per day for up to 31 days.` },
    { role: 'user', content: 'How do I get July 2026 as JSON?' },
  ],
};

export const chatReplyExample =
  `Ask GET ${PATHS.data}?startDate=2026-07-01&endDate=2026-07-31: it answers one record per day ` +
  'with txn_count, impr_count and service_revenue. No key is needed; keep each request within 31 days. ' +
  'More in the API reference: /docs/api';

const at = PATHS.chat;

/** One link-value as formatSourcesLink writes it (RFC 8288 section 3, title* per RFC 8187). */
const SOURCE_LINK = `<\\/[^>]*>; rel="${SOURCE_REL}"; title\\*=UTF-8''[A-Za-z0-9!#$&+\\-.^_\`|~%]*`;

/** The reply's sources (src/features/chat/sources.ts). */
const SourcesHeaders = z.object({
  Link: z
    .string()
    .regex(new RegExp(`^${SOURCE_LINK}(, ${SOURCE_LINK})*$`))
    .optional()
    .meta({
      description:
        `The pages the reply came from (news articles, help pages): one link each with rel="${SOURCE_REL}" ("the source of the information", RFC 4287 section 4.2.7.2) per RFC 8288, ` +
        "the page title as title* (RFC 8187, UTF-8, percent-encoded). The target is a path relative to the request URL. " +
        'The built-in assistant lists the pages it quotes; with an LLM, the pages of the passages the model was given as context. ' +
        `At most ${SOURCE_LIMITS.count} links and ${SOURCE_LIMITS.headerBytes.toLocaleString('en')} bytes. Sent before the first byte of the reply; absent when it quotes nothing (a greeting, "I don't know"). ` +
        'Exposed to allowed cross-origin callers (Access-Control-Expose-Headers).',
      examples: [
        formatSourcesLink([
          { url: '/docs/api', title: 'The community data API: Limits' },
          { url: '/news/community-data-api', title: 'A free API for our daily market data' },
        ])!,
      ],
    }),
});

const ABOUT =
  'Answers the last message of the conversation with a plain-text reply, streamed as it is written. ' +
  'Browsers send Origin themselves; pages of origins the operator has not allowed get 403, and so do requests without Origin unless the operator allows them (CHAT_ALLOW_NO_ORIGIN).\n\n' +
  `Body: JSON, at most ${CHAT_LIMITS.maxBodyBytes.toLocaleString('en')} bytes, ${CHAT_LIMITS.maxMessages} messages of ${CHAT_LIMITS.maxContentChars.toLocaleString('en')} characters. ` +
  'The pages the answer came from are in the `Link` header (rel="via"), so the body stays plain text. ' +
  'To stop an answer, close the connection (abort the request): the server stops generating, and an upstream LLM request is aborted too.';

/** Error bodies of sendChatMessage, by status. */
export function chatErrors(): Record<number, Examples> {
  const limit = CHAT_LIMITS.maxBodyBytes;
  return {
    400: {
      validation_failed: {
        summary: 'The conversation does not end with the visitor',
        value: thrownBody(() => parseChatRequest('application/json', JSON.stringify({ messages: [{ role: 'assistant', content: 'Hello! How can I help?' }] })), at),
      },
      empty_body: { summary: 'No body', value: thrownBody(() => parseChatRequest('application/json', ''), at) },
    },
    403: {
      origin_not_allowed: {
        summary: 'A page of another site',
        value: errorBody(originError({ allowed: false, reason: 'not_listed', origin: 'https://elsewhere.example' }), at),
      },
    },
    413: {
      payload_too_large: {
        summary: 'Body over the limit',
        value: problemExample(at, 'payload_too_large', { detail: `The request body exceeds ${limit} bytes.`, resolution: `Send at most ${limit} bytes.` }),
      },
    },
    415: { unsupported_media_type: { summary: 'Not JSON', value: thrownBody(() => parseChatRequest('text/plain', 'Hello'), at) } },
  };
}

export function sendChatMessage(context: ApiContext): ZodOpenApiOperationObject {
  const headers = siteRateLimitHeaders(context.policies.chat);
  const examples = chatErrors();
  return {
    ...siteOperation('sendChatMessage', 'Ask the site assistant', ABOUT, context.policies.chat),
    requestParams: {
      header: z.object({
        Origin: z
          .string()
          .optional()
          .meta({ description: "The calling page's origin (RFC 6454); browsers set it. Must be an allowed origin.", examples: [context.siteUrl] }),
      }),
    },
    requestBody: jsonRequestBody(ChatRequest, chatExample),
    responses: {
      '200': {
        description: 'The reply, streamed as plain text while it is written. A failure after the first byte ends the text early.',
        headers: headers.extend(NoStoreHeaders.shape).extend(SourcesHeaders.shape),
        content: { 'text/plain': { schema: z.string().meta({ description: "The assistant's reply (UTF-8 text)." }), example: chatReplyExample } },
      },
      ...errorResponses('site', at, headers, {
        400: invalidBody('Bad Request: the messages payload is invalid (each problem listed in `errors`), malformed or missing.', examples[400]!, FieldError),
        403: { description: "Forbidden: the request's origin is not allowed to use the assistant.", examples: examples[403]! },
        // Other methods are not limited as chat messages but as the site class.
        405: methodNotAllowed(at, CHAT_ALLOW, siteRateLimitHeaders(context.policies.site), { detail: 'DELETE is not supported here; send the conversation with POST.' }),
        413: { description: 'Content Too Large: the body is over the limit.', examples: examples[413]! },
        415: { description: 'Unsupported Media Type: the body is not JSON.', examples: examples[415]! },
        429: siteRateLimited(context.policies.chat, at),
      }),
    },
    'x-codeSamples': codeSamples({
      method: 'POST',
      url: `${context.siteUrl}${at}`,
      headers: { Origin: context.siteUrl },
      body: { messages: [{ role: 'user', content: 'How do I get July 2026 as JSON?' }] },
      streamed: true,
    }),
  };
}
