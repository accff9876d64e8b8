/**
 * The webhook channel of the outbox: POSTs a submission (ContactDelivery JSON) to
 * CONTACT_WEBHOOK_URL. Any 2xx delivers it; anything else is a failed attempt, retried on the
 * outbox's schedule.
 *
 * Redirects are not followed: a 3xx is a failed attempt (its status and Location recorded), so a
 * submission only ever goes to the configured URL. Following one would re-send the personal data
 * in the body to wherever the Location names (RFC 9110 section 15.4.8: a 307 or 308 repeats the
 * POST with its body), a place nobody configured.
 *
 * Every request goes through the outbound guard (src/lib/outbound-guard.ts): a host that resolves
 * to a loopback, private, link-local or other non-public address is refused, with the reason
 * recorded, unless the operator set CONTACT_WEBHOOK_ALLOW_PRIVATE because the receiver is on their
 * own network on purpose. Personal data must only leave for where somebody meant it to go.
 *
 * Delivery is at least once: a crash after the receiver's 2xx but before the outbox's bookkeeping
 * sends again. Every request carries `Idempotency-Key: contact-submission-<id>`; with a signing
 * secret, also the Standard Webhooks headers (webhook-signing.ts), whose webhook-id is that same
 * value on every attempt and redelivery, and whose timestamp and signature are the attempt's own.
 */
import type { LookupFunction } from 'node:net';
import { createGuardedFetch, outboundRefusal, publicFetch } from '../../lib/outbound-guard.ts';
import { redactUrlsIn } from '../../lib/redact-url.ts';
import { contactDelivery } from './contact-delivery.ts';
import type { AttemptOutcome, DeliveryChannel } from './delivery-channel.ts';
import { webhookId, webhookSigner } from './webhook-signing.ts';

export interface WebhookChannelOptions {
  url: string;
  /** CONTACT_WEBHOOK_SECRET (`whsec_...`): sign each attempt per Standard Webhooks; unset sends no signature headers. */
  signingSecret?: string | undefined;
  /** CONTACT_WEBHOOK_ALLOW_PRIVATE: the receiver may be on a loopback or private address. */
  allowPrivate?: boolean | undefined;
  /** Ports the guarded delivery may use besides 80 and 443 (OUTBOUND_ALLOW_PORTS), on every hop. */
  allowPorts?: readonly number[] | undefined;
  /** Tests: the resolver the outbound guard asks (dns.lookup by default). */
  lookup?: LookupFunction | undefined;
  /** Replaces the guarded fetch altogether (tests). */
  fetch?: typeof fetch | undefined;
}

/** The fetch deliveries go through: guarded unless the operator allowed a private receiver. */
export function webhookFetch(options: Pick<WebhookChannelOptions, 'allowPrivate' | 'allowPorts' | 'lookup'>): typeof fetch {
  if (options.allowPrivate === true) return fetch;
  return options.lookup ? createGuardedFetch({ lookup: options.lookup, allowPorts: options.allowPorts }) : publicFetch(options.allowPorts);
}

/**
 * The channel. The signer is made on the first attempt: a secret that bypassed the
 * configuration's check then fails that attempt, recorded, rather than throwing at start.
 */
export function webhookChannel(options: WebhookChannelOptions): DeliveryChannel {
  // Made once: the guarded fetch keeps its connections for the next attempts.
  const doFetch = options.fetch ?? webhookFetch(options);
  let sign: ReturnType<typeof webhookSigner> | undefined;
  return {
    name: 'webhook',
    async send(submission, { now, timeoutMs }) {
      const body = JSON.stringify(contactDelivery(submission));
      let signature = {};
      try {
        if (options.signingSecret !== undefined) {
          sign ??= webhookSigner(options.signingSecret);
          signature = sign(webhookId(submission.id), now(), body);
        }
      } catch (error) {
        return { ok: false, error: `cannot sign: ${(error as Error).message}` };
      }
      return post(doFetch, options.url, body, { 'idempotency-key': webhookId(submission.id), ...signature }, timeoutMs);
    },
  };
}

async function post(doFetch: typeof fetch, url: string, body: string, headers: Record<string, string>, timeoutMs: number): Promise<AttemptOutcome> {
  try {
    const response = await doFetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'contact-outbox/1', ...headers },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      // A 3xx comes back as it is and counts as a failure (see the top of this file).
      redirect: 'manual',
    });
    // Release the connection; the answer's body means nothing to us.
    await response.body?.cancel().catch(() => {});
    if (response.ok) return { ok: true, responseCode: response.status };
    const status = `HTTP ${response.status} ${response.statusText}`.trim();
    const location = response.headers.get('location');
    const error = response.status >= 300 && response.status < 400 ? `${status}: redirects are not followed${location ? ` (Location: ${location})` : ''}` : status;
    // A redirect's Location may name a URL with credentials: the stored error keeps none.
    return { ok: false, responseCode: response.status, error: redactUrlsIn(error) };
  } catch (error) {
    const err = error as Error & { cause?: { code?: string; message?: string } };
    if (err.name === 'TimeoutError') return { ok: false, error: `no answer within ${timeoutMs} ms` };
    const refusal = outboundRefusal(error);
    if (refusal) return { ok: false, error: `refused: ${refusal.message}; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose` };
    const cause = err.cause?.code ?? err.cause?.message;
    return { ok: false, error: redactUrlsIn(cause ? `${err.message} (${cause})` : err.message) };
  }
}
