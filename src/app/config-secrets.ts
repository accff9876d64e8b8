/**
 * What of the configuration is secret: the values the logger blanks wherever they turn up, and
 * what a configuration error may echo of a bad value.
 */
import { redactUrl } from '../lib/redact-url.ts';

/** The settings secretValues reads (src/app/config.ts `Config` has them all). */
export interface SecretBearing {
  readonly DATABASE_URL: string;
  readonly REDIS_URL?: string | undefined;
  readonly CONTACT_NOTIFY_SMTP_URL?: string | undefined;
  readonly CONTACT_WEBHOOK_URL?: string | undefined;
  readonly CONTACT_WEBHOOK_SECRET?: string | undefined;
}

/** Variables whose value is never echoed in a configuration error. */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD/;
/** Variables that hold a secret value (REDIS_KEY_PREFIX, which matches SECRET_NAME, does not). */
const SECRET_VARIABLE = /(_KEY|SECRET|TOKEN|PASSWORD)$/;
/** Variables whose messages already quote the offending item (redacted where needed). */
const QUOTES_ITEM = new Set(['TRUST_PROXY', 'ALLOWED_ORIGINS']);

/**
 * Every configured secret value, for the logger to blank wherever one turns up
 * (src/lib/redact-secrets.ts): each variable named like a secret, the passwords (or a lone
 * username, often a token) of the connection URLs and their secret-named query parameters, the webhook signing key's bytes, and
 * CONTACT_WEBHOOK_URL, whose path or query is its secret when the receiver has no other.
 */
export function secretValues(config: SecretBearing): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(config) as [string, unknown][]) {
    if (typeof value === 'string' && SECRET_VARIABLE.test(name)) values.push(value);
  }
  const webhookSecret = config.CONTACT_WEBHOOK_SECRET;
  if (webhookSecret !== undefined) values.push(webhookSecret.slice(webhookSecret.indexOf('_') + 1));
  for (const url of [config.DATABASE_URL, config.REDIS_URL, config.CONTACT_NOTIFY_SMTP_URL]) {
    const parsed = url === undefined ? undefined : URL.parse(url);
    if (parsed === undefined || parsed === null) continue;
    // A lone username is often a token (redis://TOKEN@host); beside a password it is a name.
    for (const part of [parsed.password || parsed.username]) {
      if (part === '') continue;
      values.push(part);
      try {
        values.push(decodeURIComponent(part));
      } catch {
        // Not valid percent-encoding: the raw form is already listed.
      }
    }
    for (const [name, value] of parsed.searchParams) if (/pass|secret|token|key/i.test(name)) values.push(value);
  }
  if (config.CONTACT_WEBHOOK_URL !== undefined) {
    const hook = new URL(config.CONTACT_WEBHOOK_URL);
    values.push(config.CONTACT_WEBHOOK_URL, hook.href, hook.pathname, `${hook.pathname}${hook.search}`, ...hook.searchParams.values());
  }
  return [...new Set(values)];
}

/** `(got "...")` for a bad value, with any URL password hidden and secret variables left out. */
export function echo(name: string, value: string | undefined): string {
  if (value === undefined || SECRET_NAME.test(name) || QUOTES_ITEM.has(name)) return '';
  return ` (got ${JSON.stringify(redactUrl(value))})`;
}
