/**
 * The one way a URL that may carry credentials is printed (logs, start-up errors, the config
 * error). REDIS_URL and DATABASE_URL legitimately hold a password (RFC 3986 §3.2.1 userinfo, or
 * a `password=` query parameter that ioredis and libpq read); it is never shown.
 */

const REDACTED = '***';

/** Query parameters whose value is a secret by name (libpq `password`/`sslpassword`, tokens, keys). */
const SECRET_PARAM = /pass|secret|token|key|auth|signature|sig$/i;

/** A URL-like token inside free text: scheme, `//`, then everything up to whitespace or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * `url` with its password (and a lone username, which is often a token) replaced by `***`, and
 * secret-named query parameters blanked. Text that is not a URL (a SQLite path) comes back as it
 * is. Text that looks like a URL but does not parse, or whose `@` the URL parser did not read as
 * userinfo (an unencoded `/` in a password makes `u:12/pw@host` a port and a path), loses
 * everything between `//` and its last `@`: printing too little beats printing a password.
 */
export function redactUrl(url: string): string {
  if (!/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return redactAuthority(url);
  }
  const hadUserinfo = parsed.username !== '' || parsed.password !== '';
  // An '@' the parser did not take as the userinfo's end: treat the whole authority as secret.
  if (!hadUserinfo && url.includes('@')) return redactAuthority(url);
  if (parsed.password !== '') parsed.password = REDACTED;
  else if (parsed.username !== '') parsed.username = REDACTED;
  let secretParam = false;
  for (const name of new Set(parsed.searchParams.keys())) {
    if (SECRET_PARAM.test(name)) {
      parsed.searchParams.set(name, REDACTED);
      secretParam = true;
    }
  }
  // Unchanged text is printed as written (no re-encoding of an innocent URL or path).
  if (!hadUserinfo && !secretParam) return url;
  const printed = parsed.href;
  return printed.slice(printed.indexOf('@') + 1).includes('@') ? redactAuthority(url) : printed;
}

/** Every URL inside `text` (an error message, a stack) passed through `redactUrl`. */
export function redactUrlsIn(text: string): string {
  return text.replace(URL_IN_TEXT, (match) => redactUrl(match));
}

/** Cut `//...@` (up to the last `@`) to `//***@`; a schemed text with no `//` but an `@` is hidden whole. */
function redactAuthority(text: string): string {
  const slashes = text.indexOf('//');
  const at = text.lastIndexOf('@');
  if (at === -1) return text;
  if (slashes === -1 || slashes > at) return `${text.slice(0, text.indexOf(':') + 1)}${REDACTED}`;
  return `${text.slice(0, slashes + 2)}${REDACTED}${text.slice(at)}`;
}
