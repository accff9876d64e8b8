/**
 * The body the outbox POSTs to CONTACT_WEBHOOK_URL (webhook-channel.server.ts), published in the
 * webhook's document (contact-webhook.openapi.ts).
 */
import { z } from 'zod';
import { PRIORITIES } from './contact-payload.ts';
import type { SubmissionContent } from './submission-content.ts';

/**
 * What the outbox POSTs to CONTACT_WEBHOOK_URL for each stored submission. The request also
 * carries `Idempotency-Key: contact-submission-<id>`: delivery is at least once (a crash between
 * the webhook's 2xx and our bookkeeping sends again), so receivers deduplicate on it.
 */
export const ContactDelivery = z.object({
  /** Always `contact_submission`. */
  type: z.literal('contact_submission'),
  /** The submission's id in our database; stable across redeliveries. */
  id: z.number().int(),
  /** When it was submitted, RFC 3339 UTC. */
  submitted_at: z.iso.datetime(),
  /** As in ContactPayload. */
  name: z.string(),
  /** As in ContactPayload; null when not given. */
  job_title: z.string().nullable(),
  /** As in ContactPayload. */
  work_email: z.string(),
  /** As in ContactPayload. */
  priority: z.enum(PRIORITIES),
  /** As in ContactPayload; null when not given. */
  message: z.string().nullable(),
});
export type ContactDelivery = z.infer<typeof ContactDelivery>;

export function contactDelivery(row: SubmissionContent & { id: number; created_at: number }): ContactDelivery {
  return {
    type: 'contact_submission',
    id: row.id,
    submitted_at: new Date(row.created_at).toISOString(),
    name: row.name,
    job_title: row.job_title,
    work_email: row.work_email,
    priority: row.priority,
    message: row.message,
  };
}
