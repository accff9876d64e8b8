/**
 * The contact form's request: the body as JSON to PATHS.contact with an Idempotency-Key, the
 * answer turned into an Outcome (contact-form.ts), and one automatic resend with the same key
 * after a lost connection, which the key makes safe.
 */
import { PATHS } from '../../lib/paths.ts';
import { outcomeOf, uuidFromBytes, type Outcome } from './contact-form.ts';

/** The server answers within 5 s by contract; past this the connection is taken as lost. */
const REQUEST_TIMEOUT_MS = 20_000;
/** One automatic resend (same key) after a network failure, after this pause. */
const NETWORK_RETRY_DELAY_MS = 1_500;

/** A fresh Idempotency-Key. */
export function newKey(): string {
  // randomUUID exists only in secure contexts (https, localhost); the fallback is as random.
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  return uuidFromBytes(crypto.getRandomValues(new Uint8Array(16)));
}

async function post(body: string, key: string): Promise<Outcome> {
  const response = await fetch(PATHS.contact, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, application/problem+json', 'idempotency-key': key },
    body,
    credentials: 'same-origin',
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const parsed: unknown = response.headers.get('content-type')?.includes('json') ? await response.json().catch(() => undefined) : undefined;
  return outcomeOf(response.status, parsed, response.headers.get('retry-after'));
}

/** Send once, and once more after a lost connection; rejects on a timeout or a second failure. */
export async function sendContact(body: string, key: string): Promise<Outcome> {
  try {
    return await post(body, key);
  } catch (error) {
    // A lost connection, not a timeout: resend once with the same key, which is safe.
    if ((error as Error).name === 'TimeoutError') throw error;
    await new Promise((resolve) => setTimeout(resolve, NETWORK_RETRY_DELAY_MS));
    return post(body, key);
  }
}
