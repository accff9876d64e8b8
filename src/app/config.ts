/**
 * The one validated configuration. Read once at start-up by `loadConfig(process.env)`; a bad
 * value throws a `ConfigError` whose message names each offending variable and what it expects.
 * Every variable is documented in README.md ("Configuration"); keep the two in step.
 */
import { validate as validCron } from 'node-cron';
import { z } from 'zod';

const bool = (name: string) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { error: `${name} must be true or false` })
    .transform((v) => v === 'true' || v === '1' || v === 'yes');

const positiveInt = z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').positive('must be greater than 0');

/** A comma-separated list, trimmed, empty items dropped. */
const list = z.string().transform((s) =>
  s
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean),
);

/**
 * `TRUST_PROXY`: which `X-Forwarded-For` / `Forwarded` hops to believe when identifying a client.
 * `false` (default): none, the socket address is the client. A number N: the N nearest proxies.
 * A comma-separated list of addresses or CIDRs: exactly those proxies.
 */
export type TrustProxy = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'list'; cidrs: string[] };

const trustProxy = z.string().transform((value, ctx): TrustProxy => {
  const v = value.trim();
  if (v === '' || v === 'false' || v === '0') return { kind: 'none' };
  if (/^\d+$/.test(v)) return { kind: 'hops', hops: Number(v) };
  if (v === 'true') {
    ctx.addIssue({ code: 'custom', message: 'use a hop count (1) or the proxy addresses, not "true": trusting every hop lets clients spoof their address' });
    return z.NEVER;
  }
  const cidrs = v.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = cidrs.find((c) => !/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(c));
  if (bad) {
    ctx.addIssue({ code: 'custom', message: `"${bad}" is not an IP address or CIDR` });
    return z.NEVER;
  }
  return { kind: 'list', cidrs };
});

const origin = z.url({ protocol: /^https?$/, error: 'must be an http(s) origin such as https://example.com' }).transform((u) => new URL(u).origin);

export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  /** TCP port of the HTTP server. 0 picks a free port (tests). */
  PORT: z.coerce.number({ error: 'must be a port number' }).int().min(0).max(65535, 'must be a port number (0-65535)').default(4321),
  /** Interface to listen on. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Public origin of the site (links, sitemap, default allowed origin). Defaults to the listen address. */
  SITE_URL: origin.optional(),
  /** SQLite file path or file: URL (default), or postgres://… for PostgreSQL. */
  DATABASE_URL: z.string().min(1).default('./data/site.db'),
  /** redis://… to share rate limits between instances; unset keeps them in-process. */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  /** Prefix of every Redis key this deployment writes (share one Redis between deployments safely). */
  REDIS_KEY_PREFIX: z.string().min(1).default('rl:'),
  /** A Redis check unanswered after this long counts as an outage: limits fall back to in-process. */
  REDIS_TIMEOUT_MS: positiveInt.default(250),
  /** Origins allowed to call the chat endpoint (and read the API cross-origin). */
  ALLOWED_ORIGINS: list.pipe(z.array(origin)).optional(),
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
  LLM_BASE_URL: z.url({ error: 'must be the base URL of an OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1' }).optional(),
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
  CONTACT_WEBHOOK_URL: z.url({ protocol: /^https?$/ }).optional(),
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
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

/** Parse the environment. Unknown variables are ignored; empty strings count as unset. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => {
        const name = String(issue.path[0] ?? 'environment');
        const got = cleaned[name];
        return `${name}: ${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got)})`}`;
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
