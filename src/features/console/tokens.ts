/**
 * Secrets of the console: invite and session tokens, CSRF tokens and WebAuthn challenges are 32
 * random bytes, base64url (256 bits, beyond guessing; OWASP's session-id guidance asks for 64).
 * Only a token's SHA-256 is stored: a token is random and unguessable, so a plain hash (no salt,
 * no stretching) already makes a leaked table useless, and lookup stays one indexed equality.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two tokens (different lengths compare unequal, early). */
export function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** A token's shape: what `newToken` makes, so junk is refused before any lookup. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
