/**
 * The `Idempotency-Key` request header of `POST /api/contact` (docs/interface.md section 3): its
 * schema, published in the document, and its reading.
 */
import { z } from 'zod';
import type { FieldError } from '../../lib/field-error.ts';

/** Longest Idempotency-Key accepted; a UUID is 36 characters. */
const IDEMPOTENCY_KEY_MAX = 255;

/**
 * The `Idempotency-Key` request header's value (draft-ietf-httpapi-idempotency-key-header): in
 * practice a UUID. Printable ASCII, no leading or trailing space, 1 to 255 characters.
 */
export const IdempotencyKey = z
  .string()
  .min(1)
  .max(IDEMPOTENCY_KEY_MAX)
  .regex(/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/)
  .meta({
    description:
      'A unique value per submission, such as a UUID: 1 to 255 printable ASCII characters, sent bare or as a structured-field string in double quotes. A retry with the same key and content is stored once; the same key with other content is refused with 422.',
    examples: ['8e03978e-40d5-43e8-bc93-6894a57f9324'],
  });

export type IdempotencyKeyParse = { ok: true; key: string | undefined } | { ok: false; error: FieldError };

/**
 * The header as sent: absent means no idempotency; a structured-field string (RFC 9651
 * section 3.3.3) loses its quotes; the rest must satisfy IdempotencyKey.
 */
export function parseIdempotencyKey(header: string | null): IdempotencyKeyParse {
  if (header === null) return { ok: true, key: undefined };
  let key = header.trim();
  if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
  const parsed = IdempotencyKey.safeParse(key);
  if (parsed.success) return { ok: true, key: parsed.data };
  return {
    ok: false,
    error: {
      field: 'Idempotency-Key',
      message: 'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
      expected: 'a unique value per submission, such as a UUID (crypto.randomUUID())',
    },
  };
}
