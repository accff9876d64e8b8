/**
 * Integrator keys of the data API (docs/interface.md section 4), the pure part: what a key is, how its
 * token looks, how a request presents it, and how it is stored.
 *
 * A token is `adk_` and 43 base64url characters: 256 bits from the operating system's CSPRNG.
 * The prefix lets secret scanners and people recognise a leaked token for what it is.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';

export const TOKEN_PREFIX = 'adk_';
const TOKEN_PATTERN = /^adk_[A-Za-z0-9_-]{43}$/;
/** How a request presents a key, for the people who get one wrong (the 401's message). */
export const KEY_FORMAT = 'Authorization: Bearer <key>, where the key is adk_ and 43 base64url characters (A-Z, a-z, 0-9, - and _), 47 in all';
/** Characters of the token kept in clear (`adk_` and 4 more) so `api-keys list` can tell keys apart: 24 bits, useless to a guesser. */
const SHOWN_CHARS = TOKEN_PREFIX.length + 4;

/** Defaults of `api-keys create`: ten times the anonymous data limits (60/min, 5,000/day). */
export const DEFAULT_KEY_MINUTE = 600;
export const DEFAULT_KEY_DAY = 50_000;
/** Upper bound of a key's limits: the token-bucket arithmetic is exact below 2.5 million per hour (token-bucket.ts). */
export const MAX_KEY_LIMIT = 1_000_000;

export const KeyLimit = z.coerce
  .number({ error: 'must be a whole number' })
  .int('must be a whole number')
  .min(1, 'must be at least 1')
  .max(MAX_KEY_LIMIT, `must be at most ${MAX_KEY_LIMIT}`);

/** A key as the limiter and the CLI see it (never the token). */
export const ApiKey = z.object({
  id: z.int().positive(),
  name: z.string().min(1).max(200),
  tokenPrefix: z.string(),
  minuteLimit: KeyLimit,
  dayLimit: KeyLimit,
  createdAt: z.int(),
  revokedAt: z.int().nullable(),
});
export type ApiKey = z.infer<typeof ApiKey>;

/** A fresh token: 32 random bytes, base64url. */
export function newToken(): string {
  return `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/**
 * What is stored instead of the token: SHA-256, hex. A plain fast hash is right here and a
 * password hash (bcrypt, scrypt, Argon2) is not: those slow functions exist to protect
 * low-entropy secrets people choose; this token has 256 random bits, so no dictionary or brute
 * force against a leaked hash can succeed, and a fast hash keeps a lookup by hash (an index
 * probe) cheap. The database never holds anything that would authenticate a request.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export function shownPrefix(token: string): string {
  return token.slice(0, SHOWN_CHARS);
}

/**
 * What the request says about credentials:
 * - `none`: no Authorization header (anonymous, today's limits);
 * - `bearer`: `Authorization: Bearer <token>` (RFC 6750 section 2.1; the scheme is
 *   case-insensitive, RFC 9110 section 11.1) with a token of our shape;
 * - `malformed`: an Authorization header that is neither, e.g. another scheme, a token of
 *   another shape or two headers. It is answered 401 rather than ignored: a client that sends
 *   credentials expects them to count, and silently treating it as anonymous would hide its bug.
 *   `problem` says what is wrong, for the answer's message.
 */
export type Credentials = { kind: 'none' } | { kind: 'bearer'; token: string } | { kind: 'malformed'; problem: string };

export function credentialsOf(headers: IncomingHttpHeaders): Credentials {
  const value = headers.authorization;
  if (value === undefined) return { kind: 'none' };
  const match = /^bearer +(\S+) *$/i.exec(value);
  if (match === null || !TOKEN_PATTERN.test(match[1]!)) return { kind: 'malformed', problem: malformation(value) }; // group 1 is not optional
  return { kind: 'bearer', token: match[1]! };
}

/**
 * What is wrong with an Authorization value that is not `Bearer <key>`, in words a client's
 * developer can act on. It never quotes the credentials; only a scheme name is repeated.
 */
function malformation(value: string): string {
  const [scheme = '', ...rest] = value.trim().split(/[ \t]+/);
  if (scheme.toLowerCase() !== 'bearer') {
    if (scheme.startsWith(TOKEN_PREFIX)) return 'it holds a key without "Bearer " before it';
    // A scheme is a token (RFC 9110 section 11.1); a short plain one is safe to name.
    if (rest.length > 0 && /^[A-Za-z][A-Za-z0-9-]{0,19}$/.test(scheme)) return `it uses the ${scheme} scheme, not Bearer`;
    return 'it does not start with the Bearer scheme';
  }
  if (rest.length === 0) return 'it has no key after Bearer';
  if (rest.length > 1) return 'it has more than one word after Bearer';
  const token = rest[0]!; // length 1
  if (!token.startsWith(TOKEN_PREFIX)) return 'the token after Bearer does not start with adk_, so it is not one of our API keys';
  if (/[^A-Za-z0-9_-]/.test(token.slice(TOKEN_PREFIX.length))) return 'the key holds a character outside base64url';
  return `the key is ${token.length} characters long, not 47 (cut short, or joined to other text?)`;
}
