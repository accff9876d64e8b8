/**
 * Fields a log line may not carry as written: secrets by name, and URLs that may hold a password,
 * wherever a log call puts them at the top level or one level down (and the request headers
 * `req.headers.authorization` / `.cookie`). Secrets are replaced; URLs keep everything but the
 * password.
 *
 * One level down this was pino's `redact` with a `*.field` path per field: with any wildcard
 * path its redactor (`@pinojs/redact`) runs on every field of every line and re-parses its paths
 * each time, a quarter of all allocation in a flood of contact submissions, whose one stored line
 * has none of those fields (bench/NOTES.md, "Memory round"). pino keeps the top-level names (a
 * lookup it makes per key anyway); one level down costs a set lookup per key here, and allocates
 * only when a field matches. A child's bindings are censored the same way, once, when the child is
 * made (censorChildBindings).
 */
import type { Logger } from 'pino';
import { redactUrl } from '../lib/redact-url.ts';

const URL_FIELDS = new Set(['DATABASE_URL', 'REDIS_URL', 'LLM_BASE_URL', 'CONTACT_WEBHOOK_URL', 'database', 'redisUrl', 'webhookUrl', 'baseUrl', 'connectionString']);
const SECRET_FIELDS = new Set(['LLM_API_KEY', 'apiKey', 'password', 'authorization', 'cookie']);

/** What replaces a secret field's value (the same mark as a configured secret's, redact-secrets.ts). */
const FIELD_MARK = '[redacted]';

/**
 * The fields pino's `redact` censors by name at the top level (a key lookup per field, pino's
 * own), in a call's fields and a child's bindings, and the request's secret headers.
 */
export const TOP_LEVEL_PATHS = [...URL_FIELDS, ...SECRET_FIELDS, 'req.headers.authorization', 'req.headers.cookie'];

function isField(key: string): boolean {
  return URL_FIELDS.has(key) || SECRET_FIELDS.has(key);
}

/** A secret field's replacement: a URL without its password, anything else the mark. */
export function censor(value: unknown, path: string[]): unknown {
  const key = path[path.length - 1] ?? '';
  return URL_FIELDS.has(key) && typeof value === 'string' ? redactUrl(value) : FIELD_MARK;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `record` with its own secret fields censored: the same object when it has none. */
export function censorOwn(record: Record<string, unknown>): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!isField(key) || !Object.hasOwn(record, key) || record[key] === undefined) continue;
    copy ??= { ...record };
    copy[key] = censor(record[key], [key]);
  }
  return copy ?? record;
}

/**
 * `fields` with the secret fields of each object-valued field censored (one level down, the
 * `*.field` of pino's paths); the caller's objects are never changed (a copy is made where a
 * field matches). `skip` names a key whose value a serializer censors itself (`err`: an Error
 * copied here would no longer be one, and lose its message and stack).
 */
export function censorNested(fields: Record<string, unknown>, skip?: string): Record<string, unknown> {
  let copy: Record<string, unknown> | undefined;
  for (const key in fields) {
    const value = fields[key];
    if (key === skip || !isRecord(value) || !Object.hasOwn(fields, key)) continue;
    const censored = censorOwn(value);
    if (censored === value) continue;
    copy ??= { ...fields };
    copy[key] = censored;
  }
  return copy ?? fields;
}

/**
 * A child's bindings get the same one-level-down censor as each line's fields (censorNested),
 * once, when the child is made. pino's `bindings` formatter cannot do it: pino applies it to the
 * root's base only and resets it for every child (lib/proto.js, `resetChildingsFormatter`). A
 * child is `Object.create(parent)`, so grandchildren find this `child` too.
 */
export function censorChildBindings(log: Logger): void {
  const pinoChild = log.child;
  log.child = function child(this: Logger, bindings, options) {
    return pinoChild.call(this, censorNested(bindings), options);
  } as Logger['child'];
}
