/**
 * The value parsers of the configuration (src/app/config.ts): each reads one kind of variable
 * strictly and says in words what it expects. Lists refuse empty items; addresses and CIDRs go
 * through ipaddr.js; URLs that carry credentials or would send a key in clear are refused.
 */
import { z } from 'zod';
import { engineOf, sqlitePath } from '../db/database-url.ts';
import { MAX_CHAIN, parseProxyRange, type TrustProxy } from '../features/ratelimit/client-key.ts';
import { isLoopbackHost } from '../lib/outbound-guard.ts';
import { redactUrl } from '../lib/redact-url.ts';

export const bool = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: `${name} must be true or false` })
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

export const positiveInt = z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').positive('must be greater than 0');

/**
 * A comma-separated list, items trimmed, each checked by `item` (which returns the parsed value
 * or a sentence saying what is wrong). An empty item (`a,,b`, a trailing comma) is refused rather
 * than dropped: it usually means a template substituted an unset variable, and silently shrinking
 * the list would hide that. Duplicates are kept once.
 */
export function list<T>(item: (text: string) => T | { problem: string }) {
  return z.string().transform((value, ctx): T[] => {
    const items = value.split(',').map((s) => s.trim());
    const parsed: T[] = [];
    for (const [index, text] of items.entries()) {
      const result = text === '' ? { problem: `item ${index + 1} is empty (a stray comma?)` } : item(text);
      if (isProblem(result)) {
        ctx.addIssue({ code: 'custom', message: result.problem });
        return z.NEVER;
      }
      if (!parsed.includes(result)) parsed.push(result);
    }
    return parsed;
  });
}

function isProblem(value: unknown): value is { problem: string } {
  return typeof value === 'object' && value !== null && 'problem' in value;
}

/**
 * An origin as RFC 6454 defines it, written as a URL: http or https, a host, an optional port,
 * and nothing else (a lone `/` path is tolerated). Credentials, paths, queries and fragments are
 * refused rather than cut off: the Origin header a browser sends never carries them, so a list
 * entry with one is a mistake that would otherwise match something else than meant.
 */
export function parseOrigin(text: string): string | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `"${redactUrl(text)}" is not an http(s) origin such as https://example.com` };
  }
  const shown = redactUrl(text);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: `"${shown}" is not an http(s) origin such as https://example.com` };
  if (url.username !== '' || url.password !== '') return { problem: `"${shown}" carries credentials; an origin is scheme, host and port only` };
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(text)) {
    return { problem: `"${shown}" has a path, query or fragment; an origin is scheme, host and port only, e.g. ${url.origin}` };
  }
  return url.origin;
}

export const origin = z.string().transform((value, ctx) => {
  const result = parseOrigin(value.trim());
  if (isProblem(result)) {
    ctx.addIssue({ code: 'custom', message: result.problem });
    return z.NEVER;
  }
  return result;
});


const EVERY_HOP = 'trusting every hop lets any client choose its own rate-limit key';

export const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  const v = value.trim();
  if (v === '' || v === 'false' || v === '0') return { kind: 'none' };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops > MAX_CHAIN) {
      ctx.addIssue({ code: 'custom', message: `a hop count of at most ${MAX_CHAIN} (got ${v}): ${EVERY_HOP}` });
      return z.NEVER;
    }
    return { kind: 'hops', hops };
  }
  if (v === 'true') {
    ctx.addIssue({ code: 'custom', message: `use a hop count (1) or the proxy addresses, not "true": ${EVERY_HOP}` });
    return z.NEVER;
  }
  const cidrs = list((item) => {
    const range = parseProxyRange(item);
    return typeof range === 'string' ? { problem: range } : item;
  }).safeParse(v);
  if (!cidrs.success) {
    for (const issue of cidrs.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
    return z.NEVER;
  }
  return { kind: 'list', cidrs: cidrs.data };
});

/** The only SQLite location whose missing directory is created (see prepareDatabaseLocation). */
export const DEFAULT_DATABASE_URL = './data/site.db';

/**
 * What src/db/create-db.ts understands: a plain path, a file: URL, `:memory:`, postgres:// or
 * postgresql://. Any other scheme is refused: create-db would take `mysql://u:pw@h/db` for a
 * relative path and create directories named after it, password included.
 */
export const databaseUrl = z.string().superRefine((value, ctx) => {
  if (value === ':memory:') return;
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return; // a plain path
  if (scheme === 'file') {
    try {
      sqlitePath(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'a file: URL must name a local file, e.g. file:///srv/site/site.db' });
    }
    return;
  }
  if (scheme === 'postgres' || scheme === 'postgresql') {
    let ok = engineOf(value) === 'postgres';
    try {
      new URL(value);
    } catch {
      ok = false;
    }
    if (!ok) ctx.addIssue({ code: 'custom', message: 'must be a URL such as postgres://host:5432/database (user:password@ before the host when needed)' });
    return;
  }
  ctx.addIssue({ code: 'custom', message: `must be a SQLite file path, a file: URL or a postgres:// URL; the scheme "${scheme}:" is not supported` });
});

/** An http(s) URL without userinfo (RFC 3986 §3.2.1 deprecates passwords in URLs). */
export function httpUrlWithoutCredentials(expects: string, credentialsHint: string) {
  return z.string().transform((value, ctx) => {
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      // reported below
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      ctx.addIssue({ code: 'custom', message: `must be ${expects}` });
      return z.NEVER;
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: `must not carry credentials (user:password@): ${credentialsHint}` });
      return z.NEVER;
    }
    return value;
  });
}

export { isLoopbackHost };

export const llmBaseUrl = httpUrlWithoutCredentials(
  'the base URL of an OpenAI-compatible API, e.g. https://api.example.com/v1 or http://127.0.0.1:11434/v1',
  'put the key in LLM_API_KEY',
).superRefine((value, ctx) => {
  const url = new URL(value);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    ctx.addIssue({ code: 'custom', message: 'must be https unless the host is loopback (localhost, 127.0.0.0/8, ::1): LLM_API_KEY would travel in clear' });
  }
});

/** A TCP port an outbound request may use besides 80 and 443 (OUTBOUND_ALLOW_PORTS). */
export function parsePort(text: string): number | { problem: string } {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : Number.NaN;
  return port >= 1 && port <= 65535 ? port : { problem: `"${text}" is not a port number (1-65535)` };
}
