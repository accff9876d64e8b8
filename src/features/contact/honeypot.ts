/**
 * The contact form's honeypot: a spam signal (spam.ts), not a field of the interface.
 */

/**
 * The honeypot: a form input hidden from people (CSS and `aria-hidden`, `tabindex="-1"`,
 * `autocomplete="off"`) that form-filling bots complete. Not part of ContactPayload: it is not
 * a field of the interface, only a signal, and is never stored.
 */
export const HONEYPOT_FIELD = 'website';

/** True when the honeypot holds anything but nothing (absent, null, or blank text). */
export function isHoneypotFilled(body: Record<string, unknown>): boolean {
  const value = body[HONEYPOT_FIELD];
  if (value === undefined || value === null) return false;
  return typeof value !== 'string' || value.trim() !== '';
}
