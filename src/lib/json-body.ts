/**
 * Reading a JSON request body, the one way every JSON endpoint does it. Refusals, cheapest
 * first, each an HttpError for the one renderer (RFC 9457 problem+json):
 *
 * - 415 `unsupported_media_type`: not `application/json` or `application/*+json` (RFC 6839), a
 *   charset other than UTF-8, or a content coding (compressed body);
 * - 400 `malformed_json`: not UTF-8, or not JSON; 400 `empty_body`: nothing but white space;
 * - 400 `validation_failed`: JSON, but not an object (the `errors` entry has field "").
 *
 * An endpoint (src/lib/endpoint.ts) gets its body already read within its route's `bodyLimit`
 * (a larger one was refused with 413 while reading) and checks it with `parseJsonBody`.
 */
import { FieldError, validationFailed } from './field-error.ts';
import { HttpError } from './http-error.ts';
import { declaresForeignCharset, isJsonMediaType } from './media-type.ts';
import type { HeaderReader } from './endpoint.ts';

export interface JsonBodyOptions {
  /** What the body carries, for resolutions: "the form", "the conversation". */
  subject: string;
  /** A small valid body, quoted when the body is empty or not an object. */
  example: string;
  /** The object in words, for the not-an-object error: "a JSON object with a messages array". */
  shape: string;
}

/** The JSON type of a value, with its article: `a number`, `an array`, `null` (RFC 8259 terms). */
export function describeJsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    default:
      return 'an object';
  }
}

/** 415 unless the headers announce uncompressed UTF-8 JSON. */
export function checkJsonRepresentation(headers: HeaderReader, options: Pick<JsonBodyOptions, 'subject'>): void {
  const contentType = headers.get('content-type');
  if (!isJsonMediaType(contentType) || declaresForeignCharset(contentType)) {
    throw new HttpError('unsupported_media_type', {
      detail: contentType ? `Content type "${contentType}" is not accepted.` : 'The request has no Content-Type.',
      resolution: `Send ${options.subject} as UTF-8 JSON with the header Content-Type: application/json.`,
      // Accept-Post (W3C Linked Data Platform 1.0, section 7.1) names what this resource takes.
      headers: { 'accept-post': 'application/json' },
    });
  }
  const coding = headers.get('content-encoding');
  if (coding !== null && coding.trim().toLowerCase() !== 'identity') {
    // RFC 9110 section 15.5.16: a 415 for a content coding carries Accept-Encoding.
    throw new HttpError('unsupported_media_type', {
      detail: `Content-Encoding "${coding}" is not accepted.`,
      resolution: 'Send the body uncompressed.',
      headers: { 'accept-encoding': 'identity' },
    });
  }
}

/** Bytes to a JSON object, or the 400 that says why not. Pure: no headers, no limit. */
export function parseJsonObject(bytes: Uint8Array, options: Pick<JsonBodyOptions, 'subject' | 'example' | 'shape'>): Record<string, unknown> {
  let text: string;
  try {
    // RFC 8259 section 8.1: JSON exchanged between systems is UTF-8; a leading BOM is ignored.
    // `fatal` refuses malformed bytes instead of turning them into U+FFFD behind our back.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new HttpError('malformed_json', { detail: 'The request body is not valid UTF-8.', resolution: 'Encode the JSON body as UTF-8.' });
  }
  if (text.trim() === '') {
    throw new HttpError('empty_body', { detail: 'The request body is empty.', resolution: `Send a JSON object such as ${options.example}.` });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HttpError('malformed_json', {
      detail: `The request body is not valid JSON: ${(error as Error).message}.`,
      resolution: 'Check the JSON syntax (quotes, commas, braces) of the body.',
    });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    const error: FieldError = { field: '', message: `The body must be a JSON object, not ${describeJsonType(value)}.`, expected: `${options.shape}, e.g. ${options.example}` };
    throw validationFailed([error], `Send ${options.subject} as one JSON object.`);
  }
  return value as Record<string, unknown>;
}


/**
 * A body already read (an endpoint's `request.body`, within its route's limit) as a JSON object,
 * or the HttpError (415, 400) that says why not.
 */
export function parseJsonBody(bytes: Uint8Array, headers: HeaderReader, options: Pick<JsonBodyOptions, 'subject' | 'example' | 'shape'>): Record<string, unknown> {
  checkJsonRepresentation(headers, options);
  return parseJsonObject(bytes, options);
}
