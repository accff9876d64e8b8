/**
 * `POST /api/contact` as an endpoint (src/lib/endpoint.ts): plain request in, plain response out.
 * The caller has read the body within the route's limit (32 KiB; past it, its 413).
 *
 * Order of refusals, cheapest first (the route table's POST-only rule is the caller's): 400 bad Idempotency-Key (headers only),
 * then the body: JSON as src/lib/json-body.ts parses it (415 type, charset or coding; 400 empty,
 * not UTF-8, not JSON, not an object), or a form body (contact-request.ts: 403 from another
 * site, 415 charset or coding); then field validation, then the proof of work when it is on
 * (400 challenge_required when no solution was sent). Spam (spam.ts: a filled honeypot, a failed
 * or spent solution, the heuristics) is answered like any other submission and stored with its
 * reason, never delivered; a filled honeypot with invalid fields answers the same and stores
 * nothing. A valid submission answers 200 only after its row is committed; when the database cannot take it
 * before the request's deadline, 502, never a hang, never a false success.
 *
 * A form posted by a browser (contact-request.ts wantsHtml) gets the same decisions as HTML: 303
 * to the thank-you page instead of 200, and the contact page again, with its values and the
 * errors, instead of a problem (contact-page.server.ts).
 */
import type { Logger } from 'pino';
import type { DbHandle } from '../../db/create-db.ts';
import { Deadline } from '../../db/deadline.ts';
import type { Endpoint, PlainRequest, PlainResponse } from '../../lib/endpoint.ts';
import { validationFailed } from '../../lib/field-error.ts';
import { HttpError, renderError, toHttpError } from '../../lib/http-error.ts';
import { parseJsonBody } from '../../lib/json-body.ts';
import { NO_METER, type Meter } from '../../lib/meter.ts';
import { PATHS } from '../../lib/paths.ts';
import { ALTCHA_FIELD } from './altcha.ts';
import { spendSolution } from './altcha.server.ts';
import { formPageResponse } from './contact-page.server.ts';
import { bodyKindOf, checkFormRepresentation, checkNotMisdeclaredJson, checkSameOrigin, formFields, siteOrigins, wantsHtml, type BodyKind } from './contact-request.ts';
import { CONTACT_BODY, isHoneypotFilled, parseContactPayload, parseIdempotencyKey, type ContactPayload } from './contact.ts';
import { IdempotencyKeyReused, storeSubmission, type StoreResult } from './contact.server.ts';
import { spamHeuristic } from './spam.ts';

/** The settings the contact endpoint reads: the composition root's Config has them all. */
export interface ContactSettings {
  /** The site's own origin: a form body from any other is refused (contact-request.ts). */
  SITE_URL: string;
  /** Turns the proof of work on (altcha.server.ts). */
  CONTACT_ALTCHA_HMAC_KEY?: string | undefined;
  /** A stored submission is queued for delivery when either is set (outbox.server.ts). */
  CONTACT_WEBHOOK_URL?: string | undefined;
  CONTACT_NOTIFY_SMTP_URL?: string | undefined;
  /** The build whose contact page answers a browser's form again (contact-page.server.ts). */
  DIST_DIR: string;
}

/** What `POST /api/contact` needs: its settings, the database, and a log. */
export interface ContactDeps {
  config: ContactSettings;
  db: DbHandle;
  log: Logger;
  /** contact_submissions_stored_total and _refused_total{reason}; NO_METER when absent. */
  meter?: Meter;
}

export const contactEndpoint: Endpoint<ContactDeps> = async (request, deps) => {
  const kind = bodyKindOf(request.headers.get('content-type'));
  const html = wantsHtml(kind, request.headers.get('accept'));
  let body: Record<string, unknown> = {};
  // The request's one deadline, handed down to the statements that spend the solution and store
  // the submission; its one timer is armed by the first of them and cleared on the way out.
  const deadline = Deadline.at(request.deadline);
  try {
    const key = parseIdempotencyKey(request.headers.get('idempotency-key'));
    if (!key.ok) throw validationFailed([key.error], 'Send a fresh UUID per submission in Idempotency-Key, or leave the header out.');
    body = fieldsOf(request, kind, deps.config);
    const honeypot = isHoneypotFilled(body);
    const parsed = parseContactPayload(body);
    if (!parsed.ok) {
      // Answer a bot as if stored, so it learns nothing to adapt to; what it sent cannot be kept.
      if (honeypot) {
        deps.log.info({ reason: 'honeypot' }, 'contact submission dropped: spam with invalid fields');
        return success(false, html);
      }
      throw validationFailed(parsed.errors, 'Correct the fields listed in errors and send the form again.');
    }
    // Spam (spam.ts) is kept with its reason and answered like the rest, never delivered.
    const spamReason = honeypot ? 'honeypot' : ((await proofOfWorkVerdict(deps, body, key.key, deadline)) ?? spamHeuristic(parsed.payload));
    const stored = await store(deps, parsed.payload, key.key, deadline, spamReason);
    deps.log.info({ submission: stored.id, replayed: stored.replayed, ...(spamReason ? { spam: spamReason } : {}) }, 'contact submission stored');
    // Spam is kept but never delivered: counted with the refusals, by its kind (a bounded label).
    if (!stored.replayed && spamReason) (deps.meter ?? NO_METER).count('contact_submissions_refused_total', { reason: spamKind(spamReason) });
    else if (!stored.replayed) (deps.meter ?? NO_METER).count('contact_submissions_stored_total');
    return success(stored.replayed, html);
  } catch (error) {
    // The reason is the error code answered: a fixed catalog (src/lib/http-error.ts), never input.
    (deps.meter ?? NO_METER).count('contact_submissions_refused_total', { reason: toHttpError(error).code });
    if (html) return formPageResponse(deps, body, error);
    return renderError(toHttpError(error), request.url.pathname);
  } finally {
    deadline.dispose();
  }
};

/** The kind of a spam reason (spam.ts), as a metric label: `honeypot`, `proof_of_work` or `heuristic`. */
function spamKind(reason: string): string {
  if (reason.startsWith('proof of work')) return 'proof_of_work';
  return reason.startsWith('heuristic') ? 'heuristic' : 'honeypot';
}

/**
 * With the proof of work on, spend the solution: undefined when it buys this submission, the spam
 * reason when it is malformed, forged, wrong, expired or spent (spam.ts); a missing one is still
 * the 400 challenge_required. Checked once the fields are valid, so a typo does not spend the
 * solution. The request's one deadline bounds the bookkeeping and the store together, so the 502
 * still comes in time however the two share it.
 */
async function proofOfWorkVerdict(deps: ContactDeps, body: Record<string, unknown>, idempotencyKey: string | undefined, deadline: Deadline): Promise<string | undefined> {
  const hmacKey = deps.config.CONTACT_ALTCHA_HMAC_KEY;
  if (hmacKey === undefined) return undefined;
  try {
    await spendSolution(deps.db, hmacKey, body[ALTCHA_FIELD], { idempotencyKey, deadline });
    return undefined;
  } catch (error) {
    if (error instanceof HttpError && (error.code === 'challenge_failed' || error.code === 'challenge_replayed')) return `proof of work: ${error.detail ?? error.title}`;
    throw error instanceof HttpError ? error : unavailable(deps, error);
  }
}

/** The submitted fields: a form body from this site, or a JSON object; throws the 403/415/400. */
function fieldsOf(request: PlainRequest, kind: BodyKind, config: ContactSettings): Record<string, unknown> {
  const bytes = request.body ?? new Uint8Array(0);
  checkNotMisdeclaredJson(kind, request.headers.get('content-type'), bytes);
  if (kind !== 'form') return parseJsonBody(bytes, request.headers, CONTACT_BODY);
  // A form body needs no CORS preflight, so any site could make a browser send one.
  checkSameOrigin(request, { siteOrigins: siteOrigins(config.SITE_URL) });
  checkFormRepresentation(request.headers);
  return formFields(bytes);
}

/**
 * 200 with `{"success": true}`; for a form posted by a browser, 303 See Other to the thank-you
 * page (RFC 9110 section 15.4.4: the answer to a POST is fetched with GET, so reloading the
 * page that follows never sends the form again).
 */
function success(replayed: boolean, html: boolean): PlainResponse {
  if (html) return { status: 303, headers: { location: PATHS.contactThanks, 'cache-control': 'no-store' }, body: null };
  return {
    status: 200,
    headers: {
      // RFC 8259 section 11 defines no charset parameter for application/json.
      'content-type': 'application/json',
      'cache-control': 'no-store',
      // Tells a retrying client its earlier attempt had been stored (a Stripe-style convention).
      ...(replayed ? { 'idempotent-replayed': 'true' } : {}),
    },
    body: JSON.stringify({ success: true }),
  };
}

/** The database could not take the submission: 502 per docs/interface.md section 3; nothing stored. */
function unavailable(deps: ContactDeps, error: unknown): HttpError {
  deps.log.error({ err: error, database: deps.db.target }, 'contact submission not stored');
  return new HttpError('upstream_unavailable', {
    detail: 'Your message could not be stored just now, so it was not received.',
    resolution: 'Please try again in a minute. Resending with the same Idempotency-Key never stores it twice.',
    cause: error,
  });
}

/**
 * Store by the request's deadline. Every failure but a reused key is the database's
 * (unreachable, read-only, locked, out of time): 502 per docs/interface.md section 3, and nothing
 * was stored: past the deadline no statement but ROLLBACK runs (src/db/deadline.ts).
 */
async function store(deps: ContactDeps, payload: ContactPayload, idempotencyKey: string | undefined, deadline: Deadline, spamReason: string | undefined): Promise<StoreResult> {
  try {
    return await storeSubmission(deps.db, payload, {
      idempotencyKey,
      spamReason,
      deliver: deps.config.CONTACT_WEBHOOK_URL !== undefined || deps.config.CONTACT_NOTIFY_SMTP_URL !== undefined,
      deadline,
    });
  } catch (error) {
    if (error instanceof IdempotencyKeyReused) {
      throw new HttpError('idempotency_key_reused', {
        detail: 'This Idempotency-Key was already used for a submission with different content.',
        resolution: 'Use a new Idempotency-Key for each new submission; reuse a key only to retry the very same one.',
      });
    }
    throw unavailable(deps, error);
  }
}
