/**
 * The contact outbox: forwards stored submissions to CONTACT_WEBHOOK_URL.
 *
 * The submission is committed first (status `pending`, due at once) and answered; delivery
 * happens here, later, so a slow or failing webhook never loses or delays a submission. Each run
 * claims due rows one at a time with a compare-and-set lease, POSTs them (ContactDelivery JSON),
 * marks 2xx as `delivered` (never sent again) and reschedules anything else with exponential
 * backoff and jitter, recording the error. Several instances may run it against one database.
 *
 * Redirects are not followed: a 3xx is a failed delivery (retried, its status recorded), so a
 * submission only ever goes to the configured URL. Following one would re-send the personal data
 * in the body to wherever the Location names (RFC 9110 section 15.4.8: a 307 or 308 repeats the
 * POST with its body), a place nobody configured.
 *
 * Every delivery goes through the outbound guard (src/lib/outbound-guard.ts): a webhook URL whose
 * host resolves to a loopback, private, link-local or other non-public address is refused, with
 * the reason stored on the row, unless the operator set CONTACT_WEBHOOK_ALLOW_PRIVATE because the
 * receiver is on their own network on purpose (a dev receiver on localhost, a service in the
 * same VPC). Personal data must only leave for where somebody meant it to go.
 *
 * The polling timer around `deliverPending` is src/app/jobs/outbox.ts.
 *
 * Delivery is at least once: if the process dies after the webhook's 2xx but before the row is
 * marked, the lease runs out and the row is sent again. Every request carries
 * `Idempotency-Key: contact-submission-<id>` so the receiver can drop the repeat; with a signing
 * secret, also the Standard Webhooks headers (webhook-signing.ts), whose webhook-id is that same
 * value on every attempt and whose timestamp and signature are the attempt's own.
 */
import type { LookupFunction } from 'node:net';
import { createGuardedFetch, outboundRefusal, publicFetch } from '../../lib/outbound-guard.ts';
import { redactUrlsIn } from '../../lib/redact-url.ts';
import type { Logger } from 'pino';
import type { DbHandle } from '../../db/create-db.ts';
import type { ContactSubmissionRow } from '../../db/schema.ts';
import { contactDelivery } from './contact.ts';
import { DEFAULT_BACKOFF, retryDelayMs, type BackoffPolicy } from './retry-backoff.ts';
import { webhookId, webhookSigner, type WebhookSigner } from './webhook-signing.ts';

export interface OutboxDeps {
  db: DbHandle;
  log?: Logger | undefined;
  webhookUrl: string;
  /** CONTACT_WEBHOOK_SECRET (`whsec_...`): sign each delivery per Standard Webhooks; unset sends no signature headers. */
  signingSecret?: string | undefined;
  /** CONTACT_WEBHOOK_ALLOW_PRIVATE: the receiver may be on a loopback or private address. */
  allowPrivate?: boolean | undefined;
  /** Ports the guarded delivery may use besides 80 and 443 (OUTBOUND_ALLOW_PORTS). */
  allowPorts?: readonly number[] | undefined;
  /** Tests: the resolver the outbound guard asks (dns.lookup by default). */
  lookup?: LookupFunction | undefined;
  /** Replaces the guarded fetch altogether (tests). */
  fetch?: typeof fetch;
  /** Epoch ms; Date.now by default. */
  now?: () => number;
  /** In [0, 1); Math.random by default. Spreads retries. */
  random?: () => number;
}

export interface DeliverOptions {
  /** Most rows one run takes. */
  batchSize?: number;
  /** How long one webhook request may take. */
  requestTimeoutMs?: number;
  /**
   * How long a claimed row is reserved for this run. Longer than the request timeout, so a row
   * is only picked up again when the run that claimed it has certainly finished with it.
   */
  leaseMs?: number;
  backoff?: BackoffPolicy;
}

export interface DeliverResult {
  delivered: number;
  failed: number;
  /** Set when the run itself stopped early, e.g. the database was unreachable. */
  error?: unknown;
}

const DEFAULTS = { batchSize: 20, requestTimeoutMs: 10_000 } as const;

/** One run over the due rows. Never throws: failures are counted, logged and rescheduled. */
export async function deliverPending(deps: OutboxDeps, options: DeliverOptions = {}): Promise<DeliverResult> {
  const now = deps.now ?? Date.now;
  const doFetch = deps.fetch ?? webhookFetch(deps);
  const batchSize = options.batchSize ?? DEFAULTS.batchSize;
  const requestTimeoutMs = options.requestTimeoutMs ?? DEFAULTS.requestTimeoutMs;
  const leaseMs = options.leaseMs ?? requestTimeoutMs + 60_000;
  const result: DeliverResult = { delivered: 0, failed: 0 };
  const { kysely: db } = deps.db;

  try {
    // Inside the try: a secret that bypassed the configuration's check stops the run, reported, not thrown.
    const sign = deps.signingSecret === undefined ? undefined : webhookSigner(deps.signingSecret);
    const due = await db
      .selectFrom('contact_submission')
      .selectAll()
      .where('delivery_status', '=', 'pending')
      .where('next_attempt_at', '<=', now())
      .orderBy('next_attempt_at')
      .orderBy('id')
      .limit(batchSize)
      .execute();

    for (const row of due) {
      // Compare-and-set claim: only the run that still sees the row as we read it wins; any
      // other instance's claim or reschedule changed next_attempt_at, and its update matches
      // nothing here. Comparing the value read, not the clock, keeps clock skew out of it.
      const claimed = await db
        .updateTable('contact_submission')
        .set({ next_attempt_at: now() + leaseMs })
        .where('id', '=', row.id)
        .where('delivery_status', '=', 'pending')
        .where('next_attempt_at', '=', row.next_attempt_at)
        .executeTakeFirst();
      if (claimed.numUpdatedRows === 0n) continue;

      const outcome = await post(doFetch, deps.webhookUrl, row, requestTimeoutMs, sign && ((body) => sign(webhookId(row.id), now(), body)));
      const attempts = row.delivery_attempts + 1;
      if (outcome.ok) {
        await db
          .updateTable('contact_submission')
          .set({ delivery_status: 'delivered', delivered_at: now(), delivery_attempts: attempts, next_attempt_at: null, last_error: null })
          .where('id', '=', row.id)
          .where('delivery_status', '=', 'pending')
          .execute();
        result.delivered += 1;
        deps.log?.info({ submission: row.id, attempts }, 'contact submission delivered');
      } else {
        const delay = retryDelayMs(attempts, deps.random, options.backoff ?? DEFAULT_BACKOFF);
        await db
          .updateTable('contact_submission')
          // A redirect's Location or an error text may name a URL with credentials: the stored error keeps none.
          .set({ delivery_attempts: attempts, next_attempt_at: now() + delay, last_error: redactUrlsIn(outcome.error).slice(0, 1000) })
          .where('id', '=', row.id)
          .where('delivery_status', '=', 'pending')
          .execute();
        result.failed += 1;
        deps.log?.warn({ submission: row.id, attempts, retryInMs: delay, status: outcome.status, error: outcome.error }, 'contact delivery failed');
      }
    }
  } catch (error) {
    result.error = error;
    deps.log?.error({ err: error }, 'contact outbox run stopped');
  }
  return result;
}

/** The fetch deliveries go through: guarded unless the operator allowed a private receiver. */
export function webhookFetch(deps: Pick<OutboxDeps, 'allowPrivate' | 'allowPorts' | 'lookup'>): typeof fetch {
  if (deps.allowPrivate === true) return fetch;
  return deps.lookup ? createGuardedFetch({ lookup: deps.lookup, allowPorts: deps.allowPorts }) : publicFetch(deps.allowPorts);
}

/** `status`: the webhook's HTTP status when it answered; absent when it did not (timeout, refused). */
type Outcome = { ok: true } | { ok: false; status?: number; error: string };

/** `sign`: the signature headers of this attempt for the exact body sent. */
async function post(doFetch: typeof fetch, url: string, row: ContactSubmissionRow, timeoutMs: number, sign?: (body: string) => ReturnType<WebhookSigner>): Promise<Outcome> {
  try {
    const body = JSON.stringify(contactDelivery({ ...row, id: Number(row.id) }));
    const response = await doFetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'idempotency-key': webhookId(row.id),
        'user-agent': 'contact-outbox/1',
        ...sign?.(body),
      },
      body,
      signal: AbortSignal.timeout(timeoutMs),
      // A 3xx comes back as it is and counts as a failure (see the top of this file).
      redirect: 'manual',
    });
    // Release the connection; the answer's body means nothing to us.
    await response.body?.cancel().catch(() => {});
    if (response.ok) return { ok: true };
    const status = `HTTP ${response.status} ${response.statusText}`.trim();
    const location = response.headers.get('location');
    const error = response.status >= 300 && response.status < 400 ? `${status}: redirects are not followed${location ? ` (Location: ${location})` : ''}` : status;
    return { ok: false, status: response.status, error };
  } catch (error) {
    const err = error as Error & { cause?: { code?: string; message?: string } };
    if (err.name === 'TimeoutError') return { ok: false, error: `no answer within ${timeoutMs} ms` };
    const refusal = outboundRefusal(error);
    if (refusal) return { ok: false, error: `refused: ${refusal.message}; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose` };
    const cause = err.cause?.code ?? err.cause?.message;
    return { ok: false, error: cause ? `${err.message} (${cause})` : err.message };
  }
}
