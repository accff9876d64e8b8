/**
 * The one rule every free-text field shares: no NUL and no unpaired surrogate.
 *
 * JSON may spell both (`"\u0000"`, `"\ud800"`), but neither is text. I-JSON (RFC 7493 section
 * 2.1) forbids strings that "include code points that identify Surrogates", and RFC 8259
 * section 8.2 warns their handling is unpredictable: SQLite stores a lone surrogate as U+FFFD,
 * so a retry of the very same body no longer matches what was stored. PostgreSQL's `text`
 * cannot hold U+0000 at all and fails the insert. Refusing both up front gives a 400 naming the
 * field instead.
 */
import { z } from 'zod';

/**
 * Any text without U+0000 and without a surrogate code point outside a pair. With the `u` flag
 * a well-formed pair is one code point (not `\p{Cs}`), so only unpaired halves match `\p{Cs}`.
 * Published as the field's `pattern` (JSON Schema 2020-12 patterns are ECMA-262 with `u`).
 */
export const CLEAN_TEXT = /^[^\0\p{Cs}]*$/u;

/** The default message; it reads on from a field name. */
export const CLEAN_TEXT_MESSAGE = 'must not contain NUL characters (U+0000) or unpaired surrogates (U+D800 to U+DFFF)';

/** The check, for `z.string().check(cleanText())`. */
export function cleanText(error: string = CLEAN_TEXT_MESSAGE) {
  return z.regex(CLEAN_TEXT, { error });
}

/** Did this issue come from `cleanText()`? */
export function isCleanTextIssue(issue: z.core.$ZodIssue): boolean {
  return issue.code === 'invalid_format' && issue.format === 'regex' && issue.pattern === String(CLEAN_TEXT);
}
