/**
 * `submitContact` (POST /api/contact) for the OpenAPI document: the body is the ContactPayload
 * schema the handler validates with, and the error examples are what the handler's own parser
 * answers for bad input.
 */
import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiRequestBodyObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { FieldError } from '../../lib/field-error.ts';
import { siteOperation, type ApiContext } from '../../lib/openapi/api-context.ts';
import { codeSamples } from '../../lib/openapi/code-samples.ts';
import { errorBody, problemExample, type Examples } from '../../lib/openapi/examples.ts';
import { NoStoreHeaders, siteRateLimitHeaders } from '../../lib/openapi/headers.ts';
import { errorResponses, invalidBody, jsonRequestBody, methodNotAllowed, siteRateLimited, type ErrorSpec } from '../../lib/openapi/responses.ts';
import { PATHS } from '../../lib/paths.ts';
import { ALTCHA_FIELD, ALTCHA_LIMITS, AltchaChallenge, challengeRequired } from './altcha.ts';
import { CONTACT_LIMITS } from './contact-limits.ts';
import { parseContactPayload } from './contact-parse.ts';
import { ContactPayload } from './contact-payload.ts';
import { IdempotencyKey } from './idempotency-key.ts';
import { FORM_MEDIA_TYPE } from './contact-request.ts';


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
  `Body: UTF-8 JSON, or the same fields as \`${FORM_MEDIA_TYPE}\` (what the contact page's form posts without JavaScript), at most ${CONTACT_LIMITS.bodyBytes.toLocaleString('en')} bytes. ` +
  'A JSON body is answered in JSON whatever Accept says. A form body is answered in JSON too, unless Accept ranks text/html above JSON (a browser): then 303 See Other to /contact/thanks/ once stored, or the contact page again as text/html, with the values kept and the errors beside the fields, with the status below. ' +
  'Form bodies from another site are refused (403): Sec-Fetch-Site must be same-origin, or Origin must be this site or one of ALLOWED_ORIGINS.\n\n' +
  `When the operator turns the proof-of-work check on (ALTCHA), every submission must carry \`${ALTCHA_FIELD}\`: fetch a challenge from GET ${PATHS.contactChallenge} (204 means the check is off), solve it with altcha-lib's \`solveChallenge\`, and send base64(JSON.stringify({challenge, solution})). ` +
  'A solution sends one submission; a retry of that submission with the same Idempotency-Key may send it again.';

/** The body: ContactPayload plus the proof-of-work payload, as JSON members or form fields. */
const ContactSubmission = ContactPayload.extend({
  [ALTCHA_FIELD]: z
    .string()
    .max(ALTCHA_LIMITS.payloadChars)
    .optional()
    .meta({ description: `Required when the proof-of-work check is on: base64 of the JSON {challenge, solution}, the challenge as GET ${PATHS.contactChallenge} gave it and the solution altcha-lib's solveChallenge found. Never stored.` }),
}).meta({ description: 'The contact form, and its proof of work when the check is on. Strings are trimmed; an unknown member is refused (400, its errors entry naming it and the nearest field), except the hidden honeypot field `website`, which is accepted and never stored.' });

/** The answers that are the contact page itself when a browser posted the form. */
const HTML_PAGE = { 'text/html': { schema: z.string().meta({ description: 'The contact page, with the values sent and the errors (a browser posted the form).' }) } };

/** Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): the rule the handler parses with. */
const IdempotencyKeyHeader = z.object({ 'Idempotency-Key': IdempotencyKey.optional() });
const badContact = { name: 'Ada Lovelace', work_email: 'ada@harbourdaily', priority: 'urgent' };

/** Error bodies of submitContact, by status. */
export function contactErrors(): Record<number, Examples> {
  const parsed = parseContactPayload(badContact);
  const errors = parsed.ok ? [] : parsed.errors;
  return {
    400: {
      validation_failed: {
        summary: 'Invalid fields, each listed in errors',
        value: problemExample(at, 'validation_failed', {
          detail: `${errors.length} fields are invalid: ${errors.map((e) => e.field).join(', ')}.`,
          resolution: 'Correct the fields listed in errors and send the form again.',
          extensions: { errors },
        }),
      },
      challenge_required: { summary: 'The proof-of-work check is on and no solution was sent', value: errorBody(challengeRequired(), at) },
      malformed_json: {
        summary: 'The body is not JSON',
        value: problemExample(at, 'malformed_json', {
          detail: `The request body is not valid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2).`,
          resolution: 'Check the JSON syntax (quotes, commas, braces) of the body.',
        }),
      },
    },
    413: {
      payload_too_large: {
        summary: 'Body over the limit',
        value: problemExample(at, 'payload_too_large', {
          detail: `The request body exceeds ${CONTACT_LIMITS.bodyBytes} bytes.`,
          resolution: `Send at most ${CONTACT_LIMITS.bodyBytes} bytes.`,
        }),
      },
    },
    415: {
      unsupported_media_type: {
        summary: 'Not JSON',
        value: problemExample(at, 'unsupported_media_type', {
          detail: 'Content type "text/plain" is not accepted.',
          resolution: 'Send the form as UTF-8 JSON with the header Content-Type: application/json.',
        }),
      },
    },
    403: {
      origin_not_allowed: {
        summary: 'A form posted from another site',
        value: problemExample(at, 'origin_not_allowed', { detail: 'A form posted from https://elsewhere.example cannot send a contact request.', resolution: 'Send the form from this site’s contact page.' }),
      },
    },
    422: {
      idempotency_key_reused: {
        summary: 'Idempotency-Key already used for other content',
        value: problemExample(at, 'idempotency_key_reused', {
          detail: 'This Idempotency-Key was already used for a submission with different content.',
          resolution: 'Use a new Idempotency-Key for each new submission; reuse a key only to retry the very same one.',
        }),
      },
    },
    502: {
      upstream_unavailable: {
        summary: 'The submission could not be stored',
        value: problemExample(at, 'upstream_unavailable', {
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
    requestBody: withForm(jsonRequestBody(ContactSubmission, contactExample)),
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
      '303': {
        description: 'See Other: a form posted by a browser was stored (or caught by the honeypot); the browser follows Location with GET.',
        headers: headers.extend(NoStoreHeaders.shape).extend({ Location: z.literal(PATHS.contactThanks).meta({ description: 'The thank-you page.' }) }),
      },
      ...withHtml(errorResponses('site', at, headers, {
        400: withChallengeCodes(
          invalidBody(
            'Bad Request: fields invalid or missing (each listed in `errors`), malformed JSON, an empty body, a bad Idempotency-Key, or a missing, wrong or spent proof of work (`challenge_*`).',
            examples[400]!,
            FieldError,
          ),
        ),
        403: { description: 'Forbidden: a form body sent from another site (cross-site request forgery).', examples: examples[403]! },
        // Other methods are not limited as contact submissions but as the site class.
        405: methodNotAllowed(at, 'POST', siteRateLimitHeaders(context.policies.site), { detail: 'DELETE is not supported here.', resolution: 'Send the contact form with POST.' }),
        413: { description: 'Content Too Large: the body is over the limit.', examples: examples[413]! },
        415: { description: 'Unsupported Media Type: the body is neither UTF-8 JSON nor a UTF-8 form, or is compressed.', examples: examples[415]! },
        422: { description: 'Unprocessable Content: the Idempotency-Key was used before for different content.', examples: examples[422]! },
        429: siteRateLimited(context.policies.contact, at),
        502: { description: 'Bad Gateway: the request could not be stored (the database failed); nothing was stored, retry later.', examples: examples[502]! },
      })),
    },
    'x-codeSamples': codeSamples({ method: 'POST', url: `${context.siteUrl}${at}`, body: contactExample }),
  };
}

/** The form encoding beside the JSON types: the same fields, as a browser's form posts them. */
function withForm(body: ZodOpenApiRequestBodyObject): ZodOpenApiRequestBodyObject {
  return { ...body, content: { ...body.content, [FORM_MEDIA_TYPE]: { schema: ContactSubmission, example: contactExample } } };
}

/**
 * The proof-of-work refusal besides the body's own 400s. A failed or spent solution is not refused:
 * it is kept as spam and answered like any submission (spam.ts), so a bot learns nothing.
 */
function withChallengeCodes(spec: ErrorSpec): ErrorSpec {
  return { ...spec, codes: [...(spec.codes ?? []), 'challenge_required'] };
}

/** The statuses a browser's form post can meet in the handler also come as the page (text/html). */
function withHtml(responses: Record<string, ZodOpenApiResponseObject>): Record<string, ZodOpenApiResponseObject> {
  const out = { ...responses };
  for (const status of ['400', '403', '413', '415', '502']) {
    const response = out[status];
    if (response) out[status] = { ...response, content: { ...response.content, ...HTML_PAGE } };
  }
  return out;
}

/** `getContactChallenge`: GET /api/contact/challenge. */
export function getContactChallenge(context: ApiContext): ZodOpenApiOperationObject {
  const headers = siteRateLimitHeaders(context.policies.site).extend(NoStoreHeaders.shape);
  const url = `${context.siteUrl}${PATHS.contactChallenge}`;
  return {
    ...siteOperation(
      'getContactChallenge',
      'Get a proof-of-work challenge for the contact form',
      `A fresh ALTCHA challenge (altcha-lib 2, PBKDF2/SHA-256), valid for ${ALTCHA_LIMITS.challengeTtlSeconds / 60} minutes, when the operator turned the contact form's proof-of-work check on; 204 when it is off. ` +
        `Solve it with altcha-lib's solveChallenge and send base64(JSON.stringify({challenge, solution})) as \`${ALTCHA_FIELD}\` with ${PATHS.contact}. Never cached. HEAD answers the same status without a body: a cheap way to learn whether the check is on.`,
      context.policies.site,
    ),
    responses: {
      '200': { description: 'A challenge: the check is on.', headers, content: { 'application/json': { schema: AltchaChallenge } } },
      '204': { description: 'No Content: the check is off; submissions need no solution.', headers },
      ...errorResponses('site', PATHS.contactChallenge, siteRateLimitHeaders(context.policies.site), {
        405: methodNotAllowed(PATHS.contactChallenge, 'GET, HEAD', siteRateLimitHeaders(context.policies.site), { detail: 'POST is not supported here.', resolution: 'Fetch a challenge with GET.' }),
        429: siteRateLimited(context.policies.site, PATHS.contactChallenge),
      }),
    },
    'x-codeSamples': codeSamples({ method: 'GET', url }),
  };
}
