/**
 * Standard Webhooks signatures (https://www.standardwebhooks.com, spec 1.0.0) for the contact
 * outbox: with CONTACT_WEBHOOK_SECRET set, each delivery carries
 *
 *   webhook-id         contact-submission-<id>: the same on every retry of one submission, so a
 *                      receiver uses it as its idempotency key (the spec's "msg_id")
 *   webhook-timestamp  the attempt's time, integer seconds since the epoch; receivers refuse
 *                      one more than 5 minutes away from their clock (replay protection)
 *   webhook-signature  `v1,<base64 HMAC-SHA256(secret, "<id>.<timestamp>.<body>")>`
 *
 * The HMAC comes from the `standardwebhooks` package, the reference implementation receivers
 * verify with, so sender and receiver cannot disagree on the signed content.
 */
import { Webhook } from 'standardwebhooks';
import { z } from 'zod';

/** The spec's prefix for a symmetric secret; what follows is standard base64 (RFC 4648 section 4). */
const PREFIX = 'whsec_';
/** Decoded length the spec asks of a symmetric secret ("between 24 bytes and 64 bytes"). */
const MIN_BYTES = 24;
const MAX_BYTES = 64;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Bytes of a `whsec_<base64>` secret, or undefined when it is not one. */
function secretBytes(value: string): number | undefined {
  if (!value.startsWith(PREFIX)) return undefined;
  const encoded = value.slice(PREFIX.length);
  if (encoded === '' || !BASE64.test(encoded)) return undefined;
  return Buffer.from(encoded, 'base64').length;
}

/**
 * CONTACT_WEBHOOK_SECRET. The messages never repeat the value (config.ts leaves secrets out of
 * its echo as well).
 */
export const WebhookSecret = z.string().check((ctx) => {
  const bytes = secretBytes(ctx.value);
  if (bytes === undefined) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: `must be ${PREFIX} followed by standard base64 (Standard Webhooks), e.g. "${PREFIX}$(openssl rand -base64 32)"` });
  } else if (bytes < MIN_BYTES || bytes > MAX_BYTES) {
    ctx.issues.push({ code: 'custom', input: ctx.value, message: `must decode to ${MIN_BYTES}-${MAX_BYTES} bytes (Standard Webhooks; got ${bytes}), e.g. "${PREFIX}$(openssl rand -base64 32)"` });
  }
});

/** The webhook-id of a submission's deliveries: stable across retries (and the Idempotency-Key's value). */
export function webhookId(submissionId: number | bigint): string {
  return `contact-submission-${submissionId}`;
}

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** Signs bodies with one secret; the key is decoded once. */
export type WebhookSigner = (id: string, nowMs: number, body: string) => SignatureHeaders;

export function webhookSigner(secret: string): WebhookSigner {
  const webhook = new Webhook(secret);
  return (id, nowMs, body) => {
    // The library floors the instant to whole seconds, as the header carries them.
    const timestamp = new Date(nowMs);
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(nowMs / 1000)),
      'webhook-signature': webhook.sign(id, timestamp, body),
    };
  };
}
