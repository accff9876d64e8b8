/**
 * The one validated configuration. Read once at start-up by `loadConfig(process.env)`; a bad
 * value throws a `ConfigError` whose message names each offending variable and what it expects.
 * Every variable is documented in README.md ("Configuration"); keep the two in step.
 */
import { accessSync, closeSync, constants, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import ipaddr from 'ipaddr.js';
import { validate as validCron } from 'node-cron';
import { z } from 'zod';
import { engineOf, sqlitePath } from '../db/create-db.ts';
import { MAX_CHAIN, parseProxyRange, type TrustProxy } from '../features/ratelimit/client-key.ts';

export type { TrustProxy };
import { redactUrl, redactUrlsIn } from '../lib/redact-url.ts';

const bool = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: `${name} must be true or false` })
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').positive('must be greater than 0');

/**
 * A comma-separated list, items trimmed, each checked by `item` (which returns the parsed value
 * or a sentence saying what is wrong). An empty item (`a,,b`, a trailing comma) is refused rather
 * than dropped: it usually means a template substituted an unset variable, and silently shrinking
 * the list would hide that. Duplicates are kept once.
 */
function list<T>(item: (text: string) => T | { problem: string }) {
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
function parseOrigin(text: string): string | { problem: string } {
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

const origin = z.string().transform((value, ctx) => {
  const result = parseOrigin(value.trim());
  if (isProblem(result)) {
    ctx.addIssue({ code: 'custom', message: result.problem });
    return z.NEVER;
  }
  return result;
});


const EVERY_HOP = 'trusting every hop lets any client choose its own rate-limit key';

const trustProxy = z.string().transform((value, ctx): TrustProxy => {
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
const databaseUrl = z.string().superRefine((value, ctx) => {
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
function httpUrlWithoutCredentials(expects: string, credentialsHint: string) {
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

/** True for localhost, 127.0.0.0/8 and ::1 (IPv4-mapped spellings included). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  const address = ipaddr.process(host);
  return address.range() === 'loopback';
}

const llmBaseUrl = httpUrlWithoutCredentials(
  'the base URL of an OpenAI-compatible API, e.g. https://api.example.com/v1 or http://127.0.0.1:11434/v1',
  'put the key in LLM_API_KEY',
).superRefine((value, ctx) => {
  const url = new URL(value);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    ctx.addIssue({ code: 'custom', message: 'must be https unless the host is loopback (localhost, 127.0.0.0/8, ::1): LLM_API_KEY would travel in clear' });
  }
});

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  /** TCP port of the HTTP server. 0 picks a free port (tests). */
  PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535, 'must be a port number (0-65535)').default(4321),
  /** Interface to listen on. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Public origin of the site (links, sitemap, default allowed origin). Defaults to the listen address. */
  SITE_URL: origin.optional(),
  /** SQLite file path or file: URL (default), or postgres://… for PostgreSQL. */
  DATABASE_URL: databaseUrl.default(DEFAULT_DATABASE_URL),
  /** redis://… to share rate limits between instances; unset keeps them in-process. */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  /** Prefix of every Redis key this deployment writes (share one Redis between deployments safely). */
  REDIS_KEY_PREFIX: z.string().min(1).default('rl:'),
  /** A Redis check unanswered after this long counts as an outage: limits fall back to in-process. */
  REDIS_TIMEOUT_MS: positiveInt.default(250),
  /** Origins allowed to call the chat endpoint (and read the API cross-origin). */
  ALLOWED_ORIGINS: list(parseOrigin).optional(),
  CHAT_ALLOW_NO_ORIGIN: bool('CHAT_ALLOW_NO_ORIGIN').default(false),
  TRUST_PROXY: trustProxy.default({ kind: 'none' }),
  /** Where `astro build` wrote its output. */
  DIST_DIR: z.string().min(1).default('./dist'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** How long in-flight requests (streams included) may run after SIGTERM before the process exits. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Upper bound of the in-memory response cache, in bytes. */
  RESPONSE_CACHE_MAX_BYTES: positiveInt.default(32 * 1024 * 1024),
  /** SQLite `synchronous` pragma: NORMAL survives a process kill in WAL mode, FULL also a power cut. */
  SQLITE_SYNCHRONOUS: z.enum(['NORMAL', 'FULL']).default('NORMAL'),

  // Rate-limit policies (requests per window, per client). See README "Rate limits".
  RATE_LIMIT_SITE_MINUTE: positiveInt.default(300),
  /** Pages (documents, not hashed assets) per minute and client: a person browsing stays far below it. */
  RATE_LIMIT_PAGE_MINUTE: positiveInt.default(240),
  RATE_LIMIT_CHAT_MINUTE: positiveInt.default(10),
  RATE_LIMIT_CHAT_DAY: positiveInt.default(200),
  RATE_LIMIT_CONTACT_HOUR: positiveInt.default(20),
  RATE_LIMIT_CONTACT_DAY: positiveInt.default(100),
  RATE_LIMIT_DATA_MINUTE: positiveInt.default(60),
  RATE_LIMIT_DATA_DAY: positiveInt.default(5000),

  /** OpenAI-compatible chat-completions server; unset uses the built-in assistant. */
  LLM_BASE_URL: llmBaseUrl.optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_TIMEOUT_MS: positiveInt.default(15_000),

  /** node-cron expression (UTC) of the nightly stats materialisation. */
  STATS_CRON: z
    .string()
    .min(1)
    .refine((expression) => validCron(expression), 'must be a node-cron expression (evaluated in UTC), e.g. "5 0 * * *"')
    .default('5 0 * * *'),
  /** Where stored contact submissions are forwarded by the outbox job; unset keeps them local. */
  CONTACT_WEBHOOK_URL: httpUrlWithoutCredentials(
    'an http(s) URL',
    'fetch refuses them, and the delivery error stored with each submission would repeat the URL; use a secret path or query token instead',
  ).optional(),
  /** Run the scheduled jobs in this process (set false on instances that should only serve). */
  JOBS_ENABLED: bool('JOBS_ENABLED').default(true),
});

export type Env = z.input<typeof EnvSchema>;

export interface Config extends Omit<z.output<typeof EnvSchema>, 'SITE_URL' | 'ALLOWED_ORIGINS'> {
  /** The site's public origin, explicit or derived from the listen address. */
  SITE_URL: string;
  /** Explicit list, or the site origin plus its localhost/127.0.0.1 twin. */
  ALLOWED_ORIGINS: string[];
  /** True when SITE_URL was derived rather than configured: follow the port actually bound. */
  siteUrlDerived: boolean;
  /** True when ALLOWED_ORIGINS was derived from SITE_URL rather than configured. */
  allowedOriginsDerived: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
  readonly problems: string[];
  constructor(problems: string[]) {
    // One line: the process prints it on stderr and exits 78, and a supervisor's log shows it whole.
    super(`Invalid configuration: ${problems.join('; ')}`);
    this.problems = problems;
  }
}

/** Variables whose value is never echoed in a configuration error. */
const SECRET_NAME = /KEY|SECRET|TOKEN|PASSWORD/;
/** Variables whose messages already quote the offending item (redacted where needed). */
const QUOTES_ITEM = new Set(['TRUST_PROXY', 'ALLOWED_ORIGINS']);

/** `(got "...")` for a bad value, with any URL password hidden and secret variables left out. */
function echo(name: string, value: string | undefined): string {
  if (value === undefined || SECRET_NAME.test(name) || QUOTES_ITEM.has(name)) return '';
  return ` (got ${JSON.stringify(redactUrl(value))})`;
}

/** Parse the environment. Unknown variables are ignored; empty strings count as unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'environment');
        // Messages are ours, but a URL inside one is redacted all the same.
        return redactUrlsIn(`${name}: ${issue.message}${echo(name, cleaned[name])}`);
      }),
    );
  }
  const { SITE_URL, ALLOWED_ORIGINS, ...rest } = parsed.data;
  if ((rest.LLM_BASE_URL === undefined) !== (rest.LLM_MODEL === undefined)) {
    throw new ConfigError(['LLM_BASE_URL and LLM_MODEL: set both to use an LLM, or neither for the built-in assistant']);
  }
  const siteUrl = SITE_URL ?? listenOrigin(rest.HOST, rest.PORT);
  return {
    ...rest,
    SITE_URL: siteUrl,
    ALLOWED_ORIGINS: ALLOWED_ORIGINS ?? defaultOrigins(siteUrl),
    siteUrlDerived: SITE_URL === undefined,
    allowedOriginsDerived: ALLOWED_ORIGINS === undefined,
  };
}

/**
 * The configuration as the running service sees it, frozen: once the port is bound, a derived
 * SITE_URL (and ALLOWED_ORIGINS derived from it) follows the port actually bound (PORT=0 picks
 * a free one). Called once, before the first request can arrive; nothing changes it afterwards.
 */
export function resolveOrigin(config: Config, boundOrigin: string): Readonly<Config> {
  if (!config.siteUrlDerived || config.SITE_URL === boundOrigin) return Object.freeze({ ...config, ALLOWED_ORIGINS: Object.freeze([...config.ALLOWED_ORIGINS]) as string[] });
  const allowed = config.allowedOriginsDerived ? defaultOrigins(boundOrigin) : config.ALLOWED_ORIGINS;
  return Object.freeze({ ...config, SITE_URL: boundOrigin, ALLOWED_ORIGINS: Object.freeze([...allowed]) as string[] });
}

/**
 * Check, before anything opens it, that SQLite can create and write DATABASE_URL's file: its
 * directory exists and is writable, and the file, if present, is a writable regular file.
 * Throws a ConfigError otherwise. Only the default `./data` is created when missing, so that
 * `npm start` works on a fresh clone; any other missing directory is a mistake (a typo, an
 * unmounted volume) that creating it would hide. Checking first also avoids Node's recursive
 * mkdir, which spins forever on a path under /proc.
 *
 * I/O, so not part of `loadConfig`: the entry calls it once at start-up.
 */
export function prepareDatabaseLocation(databaseUrl: string): void {
  if (engineOf(databaseUrl) !== 'sqlite') return;
  const path = sqlitePath(databaseUrl);
  if (path === ':memory:') return;
  const dir = dirname(path);
  const problem = (text: string) => new ConfigError([`DATABASE_URL: ${text}`]);
  const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);
  try {
    if (!statSync(dir).isDirectory()) throw problem(`${dir} is not a directory`);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (databaseUrl !== DEFAULT_DATABASE_URL || codeOf(error) !== 'ENOENT') {
      throw problem(`the directory ${dir} does not exist or cannot be read (${codeOf(error)}); create it first`);
    }
    try {
      mkdirSync(dir); // not recursive: the default's parent is the working directory
    } catch (mkdirError) {
      if (codeOf(mkdirError) !== 'EEXIST') throw problem(`cannot create the default directory ${dir} (${codeOf(mkdirError)})`);
    }
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw problem(`cannot write in ${dir} (${codeOf(error)}): SQLite creates the database and its -wal and -shm files there`);
  }
  // Opening for append creates the file as SQLite would and proves we may write it, even where
  // access(2) says yes to root (procfs, a read-only bind mount); an empty file is an empty database.
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat !== undefined && !stat.isFile()) throw problem(`${path} exists and is not a file`);
    closeSync(openSync(path, 'a'));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw problem(`cannot create or write ${path} (${codeOf(error)})`);
  }
}

function listenOrigin(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** The site origin, and for a loopback origin both spellings (localhost and 127.0.0.1). */
export function defaultOrigins(siteUrl: string): string[] {
  const url = new URL(siteUrl);
  const origins = new Set([url.origin]);
  if (url.hostname === 'localhost' || url.hostname === '127.0.0.1') {
    for (const host of ['localhost', '127.0.0.1']) origins.add(`${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`);
  }
  return [...origins];
}
