/**
 * Realistic examples for the OpenAPI document. Where a pure function of the feature produces
 * the real value (a parse error, an origin refusal, an error body), the example is computed
 * with it, so its wording is the wording clients will see. The rest mirrors the demo content.
 * Unit tests check every example against its schema.
 */
import { CHAT_LIMITS, parseChatRequest, type ChatRequest } from '../chat/chat-request.ts';
import { originError } from '../chat/origin-policy.ts';
import { CONTACT_LIMITS, parseContactPayload, type ContactPayload } from '../contact/contact.ts';
import type { NewsArticle } from '../news/schema.ts';
import type { SellersDocument } from '../sellers/schema.ts';
import type { DataResponse } from '../stats/data-record.ts';
import { parseDateRange } from '../stats/date-range.ts';
import { HttpError, renderError, type ErrorCode, type HttpErrorInit } from '../../lib/http-error.ts';

/** A named example (OpenAPI Example Object). */
export interface NamedExample {
  summary: string;
  value: unknown;
}

/** The body `renderError` writes for `error` on `pathname`, parsed. */
export function errorBody(error: HttpError, pathname: string): Record<string, unknown> {
  return JSON.parse(renderError(error, pathname).body) as Record<string, unknown>;
}

function problem(status: number, code: ErrorCode, init: HttpErrorInit, pathname = '/api/contact'): Record<string, unknown> {
  return errorBody(new HttpError(status, code, init), pathname);
}

/** The HttpError a pure parser throws for `run`, as a rendered body. */
function thrownBody(run: () => unknown, pathname: string): Record<string, unknown> {
  try {
    run();
  } catch (error) {
    if (error instanceof HttpError) return errorBody(error, pathname);
    throw error;
  }
  throw new Error(`expected ${pathname} example input to be refused`);
}

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

export const contactExample: ContactPayload = {
  name: 'Ada Lovelace',
  job_title: 'Head of Programmatic',
  work_email: 'ada@harbourdaily.example',
  priority: 'high',
  message: 'We would like to list our sports inventory with you. Who can we talk to?',
};

const badContact = { name: 'Ada Lovelace', work_email: 'ada@harbourdaily', priority: 'urgent' };
const badContactErrors = (() => {
  const parsed = parseContactPayload(badContact);
  return parsed.ok ? [] : parsed.errors;
})();

/** Error bodies of submitContact, by status. */
export const contactErrors: Record<number, Record<string, NamedExample>> = {
  400: {
    validation_failed: {
      summary: 'Invalid fields, each listed in errors',
      value: problem(400, 'validation_failed', {
        detail: `${badContactErrors.length} fields are invalid: ${badContactErrors.map((e) => e.field).join(', ')}.`,
        resolution: 'Correct the fields listed in errors and send the form again.',
        extensions: { errors: badContactErrors },
      }),
    },
    malformed_json: {
      summary: 'The body is not JSON',
      value: problem(400, 'malformed_json', {
        detail: `The request body is not valid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2).`,
        resolution: 'Check the JSON syntax (quotes, commas, braces) of the body.',
      }),
    },
  },
  413: {
    payload_too_large: {
      summary: 'Body over the limit',
      value: problem(413, 'payload_too_large', {
        detail: `The request body exceeds ${CONTACT_LIMITS.bodyBytes} bytes.`,
        resolution: `Send at most ${CONTACT_LIMITS.bodyBytes} bytes.`,
      }),
    },
  },
  415: {
    unsupported_media_type: {
      summary: 'Not JSON',
      value: problem(415, 'unsupported_media_type', {
        detail: 'Content type "application/x-www-form-urlencoded" is not accepted.',
        resolution: 'Send the form as UTF-8 JSON with the header Content-Type: application/json.',
      }),
    },
  },
  422: {
    idempotency_key_reused: {
      summary: 'Idempotency-Key already used for other content',
      value: problem(422, 'idempotency_key_reused', {
        detail: 'This Idempotency-Key was already used for a submission with different content.',
        resolution: 'Use a new Idempotency-Key for each new submission; reuse a key only to retry the very same one.',
      }),
    },
  },
  502: {
    upstream_unavailable: {
      summary: 'The submission could not be stored',
      value: problem(502, 'upstream_unavailable', {
        detail: 'Your message could not be stored just now, so it was not received.',
        resolution: 'Please try again in a minute. Resending with the same Idempotency-Key never stores it twice.',
      }),
    },
  },
};

export const chatExample: ChatRequest = {
  messages: [
    { role: 'user', content: 'Is there an API for your daily statistics?' },
    { role: 'assistant', content: 'Yes: GET /api/v1/public/data returns one record per day for up to 31 days.' },
    { role: 'user', content: 'How do I get July 2026 as JSON?' },
  ],
};

export const chatReplyExample =
  'Ask GET /api/v1/public/data?startDate=2026-07-01&endDate=2026-07-31: it answers one record per day ' +
  'with txn_count, impr_count and service_revenue. No key is needed; keep each request within 31 days. ' +
  'More in the API reference: /docs/api';

/** Error bodies of sendChatMessage, by status. */
export const chatErrors: Record<number, Record<string, NamedExample>> = {
  400: {
    validation_failed: {
      summary: 'The conversation does not end with the visitor',
      value: thrownBody(
        () => parseChatRequest('application/json', JSON.stringify({ messages: [{ role: 'assistant', content: 'Hello! How can I help?' }] })),
        '/api/chat',
      ),
    },
    empty_body: { summary: 'No body', value: thrownBody(() => parseChatRequest('application/json', ''), '/api/chat') },
  },
  403: {
    origin_not_allowed: {
      summary: 'A page of another site',
      value: errorBody(originError({ allowed: false, reason: 'not_listed', origin: 'https://elsewhere.example' }), '/api/chat'),
    },
  },
  413: {
    payload_too_large: {
      summary: 'Body over the limit',
      value: problem(
        413,
        'payload_too_large',
        { detail: `The request body exceeds ${CHAT_LIMITS.maxBodyBytes} bytes.`, resolution: `Send at most ${CHAT_LIMITS.maxBodyBytes} bytes.` },
        '/api/chat',
      ),
    },
  },
  415: {
    unsupported_media_type: {
      summary: 'Not JSON',
      value: thrownBody(() => parseChatRequest('text/plain', 'Hello'), '/api/chat'),
    },
  },
};

/** The site interface's 429, as the edge writes it for `scope`. */
export function siteRateLimitedExample(scope: string, retryAfter: number, pathname: string): Record<string, unknown> {
  return problem(
    429,
    'rate_limited',
    {
      detail: `The ${scope} limit is used up for this client.`,
      resolution: `Wait ${retryAfter} seconds (Retry-After) before retrying.`,
      extensions: { scope, retryAfter },
    },
    pathname,
  );
}

export const dataExample: DataResponse = {
  status: 'Success',
  data: [
    { date: '2026-07-01', txn_count: 74, impr_count: 2398, service_revenue: 2519.64 },
    { date: '2026-07-02', txn_count: 69, impr_count: 2431, service_revenue: 2204.1 },
  ],
};

const DATA_PATH = '/api/v1/public/data';
const dataRefusal = (query: string) => thrownBody(() => parseDateRange(new URLSearchParams(query)), DATA_PATH);

/** Error bodies of getDailyStats, by status. */
export const dataErrors: Record<number, Record<string, NamedExample>> = {
  400: {
    tooLong: { summary: 'More than 31 days', value: dataRefusal('startDate=2026-07-01&endDate=2026-08-15') },
    reversed: { summary: 'endDate before startDate', value: dataRefusal('startDate=2026-07-31&endDate=2026-07-01') },
    malformed: { summary: 'Not YYYY-MM-DD', value: dataRefusal('startDate=01/07/2026&endDate=2026-07-31') },
    missing: { summary: 'A date missing', value: dataRefusal('startDate=2026-07-01') },
  },
  429: {
    minute: {
      summary: 'Too many requests this minute',
      value: errorBody(new HttpError(429, 'SVC1010', { detail: 'rate limit exceeded: too many requests in a given amount of time; retry after 42 seconds' }), DATA_PATH),
    },
    day: {
      summary: 'Daily quota spent',
      value: errorBody(new HttpError(429, 'SVC1010', { detail: 'rate limit exceeded: the daily quota is spent; it resets at 00:00 UTC, in 3600 seconds' }), DATA_PATH),
    },
  },
};
