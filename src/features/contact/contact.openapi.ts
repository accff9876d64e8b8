/**
 * `submitContact` (POST /api/contact) for the OpenAPI document: the body is the ContactPayload
 * schema the handler validates with, and the error examples are what the handler's own parser
 * answers for bad input.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject } from 'zod-openapi';
import { codeSamples } from '../../api-docs/code-samples.ts';
import { siteOperation, type ApiContext } from '../../api-docs/context.ts';
import { problemExample, type Examples } from '../../api-docs/examples.ts';
import { NoStoreHeaders, siteRateLimitHeaders } from '../../api-docs/headers.ts';
import { errorResponses, invalidBody, methodNotAllowed, siteRateLimited } from '../../api-docs/responses.ts';
import { FieldError } from '../../lib/field-error.ts';
import { PATHS } from '../../lib/paths.ts';
import { CONTACT_LIMITS, ContactPayload, IDEMPOTENCY_KEY_MAX, parseContactPayload } from './contact.ts';


export const contactExample: ContactPayload = {
  name: 'Ada Lovelace',
  job_title: 'Head of Programmatic',
  work_email: 'ada@harbourdaily.example',
  priority: 'high',
  message: 'We would like to list our sports inventory with you. Who can we talk to?',
};

const at = PATHS.contact;

const ABOUT =
  'Stores a contact request for the team. The answer is 200 only once the request is durably stored; if storage fails, 502 and nothing was stored. ' +
  'Send an Idempotency-Key to make retries safe: the same key with the same content is stored once.\n\n' +
  `Body: UTF-8 JSON, at most ${CONTACT_LIMITS.bodyBytes.toLocaleString('en')} bytes. `;

/** Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a retry is stored once. */
const IdempotencyKeyHeader = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(IDEMPOTENCY_KEY_MAX)
    .optional()
    .meta({ description: 'A unique value per submission, such as a UUID; a retry with the same key and content is not stored twice.', examples: ['5b0f6f0e-3c1d-4e6b-9a55-1f2a0c7d9e41'] }),
});
const badContact = { name: 'Ada Lovelace', work_email: 'ada@harbourdaily', priority: 'urgent' };

/** Error bodies of submitContact, by status. */
export function contactErrors(): Record<number, Examples> {
  const parsed = parseContactPayload(badContact);
  const errors = parsed.ok ? [] : parsed.errors;
  return {
    400: {
      validation_failed: {
        summary: 'Invalid fields, each listed in errors',
        value: problemExample(at, 400, 'validation_failed', {
          detail: `${errors.length} fields are invalid: ${errors.map((e) => e.field).join(', ')}.`,
          resolution: 'Correct the fields listed in errors and send the form again.',
          extensions: { errors },
        }),
      },
      malformed_json: {
        summary: 'The body is not JSON',
        value: problemExample(at, 400, 'malformed_json', {
          detail: `The request body is not valid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2).`,
          resolution: 'Check the JSON syntax (quotes, commas, braces) of the body.',
        }),
      },
    },
    413: {
      payload_too_large: {
        summary: 'Body over the limit',
        value: problemExample(at, 413, 'payload_too_large', {
          detail: `The request body exceeds ${CONTACT_LIMITS.bodyBytes} bytes.`,
          resolution: `Send at most ${CONTACT_LIMITS.bodyBytes} bytes.`,
        }),
      },
    },
    415: {
      unsupported_media_type: {
        summary: 'Not JSON',
        value: problemExample(at, 415, 'unsupported_media_type', {
          detail: 'Content type "application/x-www-form-urlencoded" is not accepted.',
          resolution: 'Send the form as UTF-8 JSON with the header Content-Type: application/json.',
        }),
      },
    },
    422: {
      idempotency_key_reused: {
        summary: 'Idempotency-Key already used for other content',
        value: problemExample(at, 422, 'idempotency_key_reused', {
          detail: 'This Idempotency-Key was already used for a submission with different content.',
          resolution: 'Use a new Idempotency-Key for each new submission; reuse a key only to retry the very same one.',
        }),
      },
    },
    502: {
      upstream_unavailable: {
        summary: 'The submission could not be stored',
        value: problemExample(at, 502, 'upstream_unavailable', {
          detail: 'Your message could not be stored just now, so it was not received.',
          resolution: 'Please try again in a minute. Resending with the same Idempotency-Key never stores it twice.',
        }),
      },
    },
  };
}

export function submitContact(context: ApiContext): ZodOpenApiOperationObject {
  const headers = siteRateLimitHeaders(context.policies.contact);
  const examples = contactErrors();
  return {
    ...siteOperation('submitContact', 'Send a contact request', ABOUT, context.policies.contact),
    requestParams: { header: IdempotencyKeyHeader },
    requestBody: { required: true, content: { 'application/json': { schema: ContactPayload, example: contactExample } } },
    responses: {
      '200': {
        description: 'Stored.',
        headers: headers.extend(NoStoreHeaders.shape).extend({
          'Idempotent-Replayed': z.literal('true').optional().meta({ description: 'Present when this Idempotency-Key had already been stored: nothing new was written.' }),
        }),
        content: {
          'application/json': {
            schema: z.object({ success: z.boolean().meta({ description: 'Always true: the request is stored.' }) }).meta({ description: 'The contact request is stored.' }),
            example: { success: true },
          },
        },
      },
      ...errorResponses('site', at, headers, {
        400: invalidBody('Bad Request: fields invalid or missing (each listed in `errors`), malformed JSON, an empty body or a bad Idempotency-Key.', examples[400]!, FieldError),
        // Other methods are not limited as contact submissions but as the site class.
        405: methodNotAllowed(at, 'POST', siteRateLimitHeaders(context.policies.site), { detail: 'DELETE is not supported here.', resolution: 'Send the contact form with POST.' }),
        413: { description: 'Content Too Large: the body is over the limit.', examples: examples[413]! },
        415: { description: 'Unsupported Media Type: the body is not UTF-8 JSON, or is compressed.', examples: examples[415]! },
        422: { description: 'Unprocessable Content: the Idempotency-Key was used before for different content.', examples: examples[422]! },
        429: siteRateLimited(context.policies.contact, at),
        502: { description: 'Bad Gateway: the request could not be stored (the database failed); nothing was stored, retry later.', examples: examples[502]! },
      }),
    },
    'x-codeSamples': codeSamples({ method: 'POST', url: `${context.siteUrl}${at}`, body: contactExample }),
  };
}
