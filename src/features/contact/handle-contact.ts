/**
 * `POST /api/contact` as a function, request in, response out (interface spec sections 2, 4, 7).
 *
 * Order of refusals, cheapest first: 405 method, 400 bad Idempotency-Key (both headers only),
 * then the body: JSON as src/lib/json-body.ts reads it (415 type, charset or coding; 413 size;
 * 400 empty, not UTF-8, not JSON, not an object), or a form body (contact-request.ts: 403 from
 * another site, 415 charset or coding, 413 size); then field validation, then the proof of work
 * when it is on (400 challenge_*). A filled honeypot answers like a success and stores nothing.
 * A valid submission answers 200 only after its row is committed; when the database cannot take
 * it within the budget, 502, never a hang, never a false success.
 *
 * A form posted by a browser (contact-request.ts wantsHtml) gets the same decisions as HTML: 303
 * to the thank-you page instead of 200, and the contact page again, with its values and the
 * errors, instead of a problem (contact-form-page.ts).
 */
import type { Services } from '../../app/services.ts';
import { validationFailed } from '../../lib/field-error.ts';
import { HttpError, errorResponse } from '../../lib/http-error.ts';
import { readBodyBytes, readJsonBody } from '../../lib/json-body.ts';
import { PATHS } from '../../lib/paths.ts';
import { ALTCHA_FIELD } from './altcha.ts';
import { spendSolution } from './altcha.server.ts';
import { formPageResponse } from './contact-page.server.ts';
import { bodyKindOf, checkFormRepresentation, checkSameOrigin, formFields, siteOrigins, wantsHtml } from './contact-request.ts';
import { CONTACT_BODY, CONTACT_LIMITS, isHoneypotFilled, parseContactPayload, parseIdempotencyKey, type ContactPayload } from './contact.ts';
import { IdempotencyKeyReused, storeSubmission, type StoreResult } from './contact.server.ts';

export interface HandleContactOptions {
  /**
   * Largest body, in bytes: the route's `bodyLimit` (src/server/routes.ts), passed by the route
   * adapter. Other callers (tests) get the documented CONTACT_LIMITS.bodyBytes.
   */
  maxBodyBytes?: number;
  /**
   * Budget for storing, in ms. The interface promises an answer within 5 s; 4 s leaves room
   * for reading the body and for the response itself.
   */
  storeTimeoutMs?: number;
}

const DEFAULT_STORE_TIMEOUT_MS = 4_000;

export async function handleContact(request: Request, services: Services, options: HandleContactOptions = {}): Promise<Response> {
  const { pathname } = new URL(request.url);
  const kind = bodyKindOf(request.headers.get('content-type'));
  const html = wantsHtml(kind, request.headers.get('accept'));
  let body: Record<string, unknown> = {};
  try {
    if (request.method !== 'POST') {
      throw new HttpError(405, 'method_not_allowed', {
        detail: `${request.method} is not supported here.`,
        resolution: 'Send the contact form with POST.',
        headers: { allow: 'POST' },
      });
    }
    const key = parseIdempotencyKey(request.headers.get('idempotency-key'));
    if (!key.ok) throw validationFailed([key.error], 'Send a fresh UUID per submission in Idempotency-Key, or leave the header out.');
    const maxBytes = options.maxBodyBytes ?? CONTACT_LIMITS.bodyBytes;
    if (kind === 'form') {
      // A form body needs no CORS preflight, so any site could make a browser send one.
      checkSameOrigin(request, { siteOrigins: siteOrigins(services.config.SITE_URL) });
      checkFormRepresentation(request.headers);
      body = formFields(await readBodyBytes(request, maxBytes, CONTACT_BODY));
    } else {
      body = await readJsonBody(request, maxBytes, CONTACT_BODY);
    }
    if (isHoneypotFilled(body)) {
      // Answer as if stored, so a bot learns nothing to adapt to.
      services.log.info({ reason: 'honeypot' }, 'contact submission dropped');
      return success(false, html);
    }
    const parsed = parseContactPayload(body);
    if (!parsed.ok) throw validationFailed(parsed.errors, 'Correct the fields listed in errors and send the form again.');
    const timeoutMs = options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    // One budget for the proof-of-work bookkeeping and the store together, so the 502 still
    // comes within the interface's 5 s however the two share it.
    const deadline = Date.now() + timeoutMs;
    const hmacKey = services.config.CONTACT_ALTCHA_HMAC_KEY;
    // Checked once the fields are valid, so a typo does not spend the solution.
    if (hmacKey !== undefined) {
      await spendSolution(services.db, hmacKey, body[ALTCHA_FIELD], { idempotencyKey: key.key, timeoutMs: timeoutMs / 2 }).catch((error: unknown) => {
        throw error instanceof HttpError ? error : unavailable(services, error);
      });
    }
    const stored = await store(services, parsed.payload, key.key, Math.max(1, deadline - Date.now()));
    services.log.info({ submission: stored.id, replayed: stored.replayed }, 'contact submission stored');
    return success(stored.replayed, html);
  } catch (error) {
    if (html) return formPageResponse(services, body, error);
    return errorResponse(error, pathname);
  }
}

/**
 * 200 with `{"success": true}`; for a form posted by a browser, 303 See Other to the thank-you
 * page (RFC 9110 section 15.4.4: the answer to a POST is fetched with GET, so reloading the
 * page that follows never sends the form again).
 */
function success(replayed: boolean, html: boolean): Response {
  if (html) return new Response(null, { status: 303, headers: { location: PATHS.contactThanks, 'cache-control': 'no-store' } });
  return new Response(JSON.stringify({ success: true }), {
    status: 200,
    headers: {
      // RFC 8259 section 11 defines no charset parameter for application/json.
      'content-type': 'application/json',
      'cache-control': 'no-store',
      // Tells a retrying client its earlier attempt had been stored (a Stripe-style convention).
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
  });
}

/** The database could not take the submission: 502 per spec section 4 rule 2; nothing stored. */
function unavailable(services: Services, error: unknown): HttpError {
  services.log.error({ err: error, database: services.db.target }, 'contact submission not stored');
  return new HttpError(502, 'upstream_unavailable', {
    detail: 'Your message could not be stored just now, so it was not received.',
    resolution: 'Please try again in a minute. Resending with the same Idempotency-Key never stores it twice.',
    cause: error,
  });
}

class StoreTimeout extends Error {
  override name = 'StoreTimeout';
}

/**
 * Store with a deadline. Every failure but a reused key is the database's (unreachable,
 * read-only, locked, timed out): 502 per spec section 4 rule 2, and nothing was stored: the
 * insert either failed or, past the deadline, is cancelled by the database itself (see
 * storeSubmission's lock timeout, set below the deadline).
 */
async function store(services: Services, payload: ContactPayload, idempotencyKey: string | undefined, timeoutMs: number): Promise<StoreResult> {
  const attempt = storeSubmission(services.db, payload, {
    idempotencyKey,
    webhookEnabled: services.config.CONTACT_WEBHOOK_URL !== undefined,
    lockTimeoutMs: Math.max(1, timeoutMs - 250),
  });
  // If the deadline wins, the store's own failure arrives later with no one awaiting it.
  attempt.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      attempt,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StoreTimeout(`the database did not answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
  } catch (error) {
    if (error instanceof IdempotencyKeyReused) {
      throw new HttpError(422, 'idempotency_key_reused', {
        detail: 'This Idempotency-Key was already used for a submission with different content.',
        resolution: 'Use a new Idempotency-Key for each new submission; reuse a key only to retry the very same one.',
      });
    }
    throw unavailable(services, error);
  } finally {
    clearTimeout(timer);
  }
}
