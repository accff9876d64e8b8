/**
 * Configured secret values, blanked wherever they occur in text about to be logged. Field-name
 * redaction (pino's `redact`) only catches a secret under a known key; a provider that repeats
 * the bearer token in its 401 message, or a driver that quotes its connection string in a stack
 * trace, puts it inside free text. Matching the values themselves catches every such copy: in a
 * message, a stack, a nested field or a cause chain, as written (raw), JSON-escaped (inside a
 * serialised log line) or percent-encoded (inside a URL).
 */

export const SECRET_MARK = '[redacted]';

/**
 * Shorter values are not searched for: they would match ordinary words and numbers, and a value
 * that short protects nothing anyway (a local LLM's placeholder key such as `ollama`).
 */
export const MIN_SECRET_CHARS = 8;

/** `text` with every form of every secret replaced; identity when there is nothing to find. */
export type SecretRedactor = (text: string) => string;

export function secretRedactor(secrets: readonly (string | undefined)[]): SecretRedactor {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret === undefined || secret.length < MIN_SECRET_CHARS) continue;
    for (const form of [secret, encodeURIComponent(secret)]) {
      forms.add(form);
      forms.add(JSON.stringify(form).slice(1, -1));
    }
  }
  // Longest first, so a secret that contains another is blanked whole.
  const list = [...forms].sort((a, b) => b.length - a.length);
  if (list.length === 0) return (text) => text;
  return (text) => {
    let result = text;
    for (const form of list) if (result.includes(form)) result = result.replaceAll(form, SECRET_MARK);
    return result;
  };
}
