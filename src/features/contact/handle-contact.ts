/**
 * `POST /api/contact` as a function, request in, response out (interface spec sections 2, 4, 7).
 *
 * Order of refusals, cheapest first: 405 method, 415 content type or coding, 400 bad
 * Idempotency-Key, 413 size (declared, then counted while reading), 400 empty body, malformed
 * JSON, a body that is not an object, then field validation. A filled honeypot answers like a
 * success and stores nothing. A valid submission answers 200 only after its row is committed;
 * when the database cannot take it within the budget, 502, never a hang, never a false success.
 */
import type { Services } from '../../app/services.ts';
import { HttpError, errorResponse } from '../../lib/http-error.ts';
import {
  CONTACT_LIMITS,
  declaresForeignCharset,
  isHoneypotFilled,
  isJsonMediaType,
  notAnObjectError,
  parseContactPayload,
  parseIdempotencyKey,
  type ContactPayload,
} from './contact.ts';
import { IdempotencyKeyReused, storeSubmission, type StoreResult } from './contact.server.ts';

export interface HandleContactOptions {
  /**
   * Budget for storing, in ms. The interface promises an answer within 5 s; 4 s leaves room
   * for reading the body and for the response itself.
   */
  storeTimeoutMs?: number;
}

const DEFAULT_STORE_TIMEOUT_MS = 4_000;

export async function handleContact(request: Request, services: Services, options: HandleContactOptions = {}): Promise<Response> {
  const { pathname } = new URL(request.url);
  try {
    if (request.method !== 'POST') {
      throw new HttpError(405, 'method_not_allowed', {
        detail: `${request.method} is not supported here.`,
        resolution: 'Send the contact form with POST.',
        headers: { allow: 'POST' },
      });
    }
    checkRepresentation(request.headers);
    const key = parseIdempotencyKey(request.headers.get('idempotency-key'));
    if (!key.ok) {
      throw new HttpError(400, 'validation_failed', {
        detail: key.error.message,
        resolution: 'Send a fresh UUID per submission in Idempotency-Key, or leave the header out.',
        extensions: { errors: [key.error] },
      });
    }
    const body = parseBody(await readBody(request, CONTACT_LIMITS.bodyBytes));
    if (isHoneypotFilled(body)) {
      // Answer as if stored, so a bot learns nothing to adapt to.
      services.log.info({ reason: 'honeypot' }, 'contact submission dropped');
      return success(false);
    }
    const parsed = parseContactPayload(body);
    if (!parsed.ok) {
      const fields = parsed.errors.map((e) => e.field);
      throw new HttpError(400, 'validation_failed', {
        detail: fields.length === 1 ? `${parsed.errors[0]!.message}` : `${fields.length} fields are invalid: ${fields.join(', ')}.`,
        resolution: 'Correct the fields listed in errors and send the form again.',
        extensions: { errors: parsed.errors },
      });
    }
    const stored = await store(services, parsed.payload, key.key, options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS);
    services.log.info({ submission: stored.id, replayed: stored.replayed }, 'contact submission stored');
    return success(stored.replayed);
  } catch (error) {
    return errorResponse(error, pathname);
  }
}

function success(replayed: boolean): Response {
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

/** 415 for a body that is not JSON, not UTF-8, or content-coded (compressed). */
function checkRepresentation(headers: Headers): void {
  const contentType = headers.get('content-type');
  if (!isJsonMediaType(contentType) || declaresForeignCharset(contentType)) {
    throw new HttpError(415, 'unsupported_media_type', {
      detail: contentType ? `Content type "${contentType}" is not accepted.` : 'The request has no Content-Type.',
      resolution: 'Send the form as UTF-8 JSON with the header Content-Type: application/json.',
      // Accept-Post (W3C Linked Data Platform 1.0, section 7.1) names what this resource takes.
      headers: { 'accept-post': 'application/json' },
    });
  }
  const coding = headers.get('content-encoding');
  if (coding !== null && coding.trim().toLowerCase() !== 'identity') {
    // RFC 9110 section 15.5.16: a 415 for a content coding carries Accept-Encoding.
    throw new HttpError(415, 'unsupported_media_type', {
      detail: `Content-Encoding "${coding}" is not accepted.`,
      resolution: 'Send the body uncompressed.',
      headers: { 'accept-encoding': 'identity' },
    });
  }
}

function tooLarge(detail: string): HttpError {
  return new HttpError(413, 'payload_too_large', {
    detail,
    resolution: `Send at most ${CONTACT_LIMITS.bodyBytes} bytes; the message field holds up to ${CONTACT_LIMITS.messageChars.toLocaleString('en')} characters.`,
  });
}

/**
 * The body as text, refusing it as soon as it passes `limit` bytes. The edge already enforces
 * the limit while reading from the socket; this repeats it for any other caller, and never
 * buffers more than `limit` bytes.
 */
async function readBody(request: Request, limit: number): Promise<string> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) {
    throw tooLarge(`The request body is ${declared} bytes; the limit is ${limit}.`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (request.body) {
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel().catch(() => {});
        throw tooLarge(`The request body exceeds the limit of ${limit} bytes.`);
      }
      chunks.push(value);
    }
  }
  try {
    // RFC 8259 section 8.1: JSON exchanged between systems is UTF-8; a leading BOM is ignored.
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, size));
  } catch {
    throw new HttpError(400, 'malformed_json', {
      detail: 'The request body is not valid UTF-8.',
      resolution: 'Encode the JSON body as UTF-8.',
    });
  }
}

/** Text to a JSON object, or the 400 that says why not. */
function parseBody(text: string): Record<string, unknown> {
  if (text.trim() === '') {
    throw new HttpError(400, 'empty_body', {
      detail: 'The request body is empty.',
      resolution: 'Send a JSON object such as {"name":"Ada","work_email":"ada@example.com","priority":"standard"}.',
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError(400, 'malformed_json', {
      detail: `The request body is not valid JSON: ${(error as Error).message}.`,
      resolution: 'Check the JSON syntax (quotes, commas, braces) of the body.',
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const error = notAnObjectError(value);
    throw new HttpError(400, 'validation_failed', {
      detail: error.message,
      resolution: 'Send the form fields as one JSON object.',
      extensions: { errors: [error] },
    });
  }
  return value as Record<string, unknown>;
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
    services.log.error({ err: error, database: services.db.target }, 'contact submission not stored');
    throw new HttpError(502, 'upstream_unavailable', {
      detail: 'Your message could not be stored just now, so it was not received.',
      resolution: 'Please try again in a minute. Resending with the same Idempotency-Key never stores it twice.',
      cause: error,
    });
  } finally {
    clearTimeout(timer);
  }
}
