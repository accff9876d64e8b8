/**
 * The contact outbox's webhook for the OpenAPI document (OpenAPI 3.1 `webhooks`): what
 * CONTACT_WEBHOOK_URL receives, with the Standard Webhooks headers of webhook-signing.ts.
 */
import { z } from 'zod';
import type { ZodOpenApiPathItemObject } from 'zod-openapi';
import { ContactDelivery } from './contact-delivery.ts';
import { contactExample } from './contact.openapi.ts';

const signed = 'Sent only when CONTACT_WEBHOOK_SECRET is set (Standard Webhooks 1.0.0, https://www.standardwebhooks.com).';

const WebhookHeaders = z.object({
  'Idempotency-Key': z.string().meta({ description: '`contact-submission-<id>`: the same on every delivery of one submission; deliveries are at least once, so de-duplicate on it.', example: 'contact-submission-42' }),
  'webhook-id': z.string().optional().meta({ description: `The same value as Idempotency-Key, stable across retries. ${signed}`, example: 'contact-submission-42' }),
  'webhook-timestamp': z.string().regex(/^\d+$/).optional().meta({ description: `When this attempt was sent, in seconds since the Unix epoch; refuse one more than 5 minutes from your clock. ${signed}`, example: '1767225600' }),
  'webhook-signature': z.string().optional().meta({
    description: `\`v1,\` and the base64 HMAC-SHA256, keyed with the base64-decoded secret after \`whsec_\`, of \`<webhook-id>.<webhook-timestamp>.<raw body>\`; verify it (e.g. \`new Webhook(secret).verify(body, headers)\` of the standardwebhooks package) before trusting the body. ${signed}`,
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  }),
});

export function contactSubmissionWebhook(): ZodOpenApiPathItemObject {
  return {
    post: {
      operationId: 'contactSubmissionWebhook',
      summary: 'A stored contact submission, forwarded',
      description:
        'The outbox POSTs each stored contact submission (spam excepted) to CONTACT_WEBHOOK_URL. Any 2xx marks it delivered; anything else (redirects included, which are not followed) is retried after 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h and 8 h (each lengthened by up to 10 % at random; CONTACT_DELIVERY_SCHEDULE), and after the tenth failed attempt the delivery is failed until an operator redelivers it (`npm run contact:redeliver`), which sends it again with the same webhook-id and a fresh webhook-timestamp.',
      tags: ['Site'],
      requestParams: { header: WebhookHeaders },
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: ContactDelivery,
            example: { type: 'contact_submission', id: 42, submitted_at: '2026-01-01T00:00:00.000Z', ...contactExample, message: contactExample.message ?? null, job_title: contactExample.job_title ?? null },
          },
        },
      },
      responses: {
        '2XX': { description: 'Received: never sent again.' },
        default: { description: 'Not received: sent again later, signed afresh with a new webhook-timestamp.' },
      },
    },
  };
}
