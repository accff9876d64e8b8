/**
 * The one validated configuration. Read once at start-up by `loadConfig(process.env)`; a bad
 * value throws a `ConfigError` whose message names each offending variable and what it expects.
 * Every variable is documented in docs/operators.md ("Configuration"); keep the two in step.
 */
import { validate as validCron } from 'node-cron';
import { z } from 'zod';
import { DEFAULT_IPV6_PREFIX, type TrustProxy } from '../features/ratelimit/client-key.ts';
import { RATE_LIMIT_DEFAULTS } from '../features/ratelimit/policies.ts';
import { WebhookSecret } from '../features/contact/webhook-signing.ts';
import { MailboxListSetting, MailboxSetting, SmtpUrl } from '../features/contact/notify-settings.ts';
import { ScheduleText } from '../features/contact/retry-schedule.ts';
import { siteOrigins } from '../features/contact/contact-request.ts';
import { isLoopbackHost, refusedRange } from '../lib/outbound-guard.ts';
import { redactUrlsIn } from '../lib/redact-url.ts';
import { echo } from './config-secrets.ts';
import { bool, databaseUrl, DEFAULT_DATABASE_URL, httpUrlWithoutCredentials, list, llmBaseUrl, origin, parseOrigin, parsePort, positiveInt, trustProxy } from './config-values.ts';

export type { TrustProxy };
export { DEFAULT_DATABASE_URL, isLoopbackHost } from './config-values.ts';
export { secretValues } from './config-secrets.ts';

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
  // 16 MiB holds about 4,000 distinct 31-day data answers, more than one integrator's working set,
  // and keeps the process within its 150 MB budget with 5,000 articles (README "Memory").
  RESPONSE_CACHE_MAX_BYTES: positiveInt.default(16 * 1024 * 1024),
  /**
   * Upper bound of the in-memory copies of prebuilt files (the variants actually served), in
   * bytes. The hot set (home, news list, recent articles, hashed CSS/JS, /api/news, sellers.json,
   * in the codings clients ask for) is a few MiB at most; the rest is read from disk on demand.
   */
  STATIC_CACHE_MAX_BYTES: positiveInt.default(16 * 1024 * 1024),
  /** SQLite `synchronous` pragma: NORMAL survives a process kill in WAL mode, FULL also a power cut. */
  SQLITE_SYNCHRONOUS: z.enum(['NORMAL', 'FULL']).default('NORMAL'),

  // Rate-limit policies (requests per window, per client), defaults from the rate-limit feature.
  // See README "Rate limits".
  RATE_LIMIT_SITE_MINUTE: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_SITE_MINUTE),
  /** Pages (documents, not hashed assets) per minute and client: a person browsing stays far below it. */
  RATE_LIMIT_PAGE_MINUTE: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_PAGE_MINUTE),
  RATE_LIMIT_CHAT_MINUTE: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_CHAT_MINUTE),
  RATE_LIMIT_CHAT_DAY: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_CHAT_DAY),
  RATE_LIMIT_CONTACT_HOUR: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_CONTACT_HOUR),
  RATE_LIMIT_CONTACT_DAY: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_CONTACT_DAY),
  RATE_LIMIT_DATA_MINUTE: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_DATA_MINUTE),
  RATE_LIMIT_DATA_DAY: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_DATA_DAY),
  /** Length of the IPv6 network that counts as one client (RFC 6177 sites get a /48 to /64). */
  RATE_LIMIT_IPV6_PREFIX: z.coerce
    .number({ error: 'must be a prefix length from 1 to 128' })
    .int('must be a prefix length from 1 to 128')
    .min(1, 'must be a prefix length from 1 to 128')
    .max(128, 'must be a prefix length from 1 to 128')
    .default(DEFAULT_IPV6_PREFIX),
  /** Also send the current IETF draft's `RateLimit-Policy` and `RateLimit` pair (structured fields). */
  RATE_LIMIT_DRAFT_HEADERS: bool('RATE_LIMIT_DRAFT_HEADERS').default(false),
  /** How long an API key's lookup is remembered: a revoked key stops working within this many seconds. */
  API_KEY_CACHE_SECONDS: positiveInt.max(3600, 'must be at most 3600 (an hour)').default(30),

  /** OpenAI-compatible chat-completions server; unset uses the built-in assistant. */
  LLM_BASE_URL: llmBaseUrl.optional(),
  LLM_API_KEY: z.string().min(1).optional(),
  LLM_MODEL: z.string().min(1).optional(),
  LLM_TIMEOUT_MS: positiveInt.default(15_000),
  /**
   * Let the LLM client connect to loopback, private and other non-public addresses (an LLM
   * server inside your own network). A loopback LLM_BASE_URL is allowed without it.
   */
  LLM_ALLOW_PRIVATE: bool('LLM_ALLOW_PRIVATE').default(false),

  /** node-cron expression (UTC) of the nightly stats materialization. */
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
  /** Deliver to a CONTACT_WEBHOOK_URL on a loopback, private or other non-public address (a receiver on your own network). */
  CONTACT_WEBHOOK_ALLOW_PRIVATE: bool('CONTACT_WEBHOOK_ALLOW_PRIVATE').default(false),
  /** Standard Webhooks secret (`whsec_<base64>`): sign each outbox delivery; unset sends unsigned ones. */
  CONTACT_WEBHOOK_SECRET: WebhookSecret.optional(),
  /** Delete contact submissions older than this many days, daily; unset keeps them forever. */
  CONTACT_RETENTION_DAYS: positiveInt.max(36_500, 'must be at most 36500 (100 years)').optional(),
  /**
   * Secret HMAC key that turns on the contact form's ALTCHA proof-of-work check (signs and
   * verifies challenges); unset leaves it off. Never echoed.
   */
  CONTACT_ALTCHA_HMAC_KEY: z.string().min(32, 'must be at least 32 characters, e.g. the output of `openssl rand -hex 32`').optional(),

  // Contact operations: e-mail to the team and the delivery schedule (docs/operators.md,
  // "E-mail notification" and "Delivery log and redelivery").
  /** SMTP server the team's notifications go through: smtp:// or smtps://, optional user:password@. Never echoed with its password. */
  CONTACT_NOTIFY_SMTP_URL: SmtpUrl.optional(),
  /** Who gets a notification of each submission: one or more addresses, comma-separated. */
  CONTACT_NOTIFY_TO: MailboxListSetting.optional(),
  /** The notifications' From address; the first of CONTACT_NOTIFY_TO when unset. */
  CONTACT_NOTIFY_FROM: MailboxSetting.optional(),
  /** Attempts per delivery before it is `failed` (the first included); one more than the schedule's delays when unset. */
  CONTACT_DELIVERY_ATTEMPTS: positiveInt.max(100, 'must be at most 100').optional(),
  /** Delays before each retry, comma-separated (`30s,2m,...`); the last repeats if the attempts need more. */
  CONTACT_DELIVERY_SCHEDULE: ScheduleText.optional(),
  /** How often the outbox looks for due deliveries, in ms (a redelivery goes out within this). */
  CONTACT_OUTBOX_INTERVAL_MS: positiveInt.max(3_600_000, 'must be at most 3600000 (an hour)').default(5_000),

  /** Run the scheduled jobs in this process (set false on instances that should only serve). */
  JOBS_ENABLED: bool('JOBS_ENABLED').default(true),
  /**
   * Growth of the resident set, in MiB, after which an idle server runs V8's last-resort
   * collection to give a burst's memory back (src/server/idle-compaction.ts); 0 turns it off.
   */
  IDLE_COMPACTION_MB: z.coerce.number({ error: 'must be a whole number' }).int('must be a whole number').min(0, 'must be 0 (off) or more').max(4096, 'must be at most 4096').default(16),

  // Backups and the erasure ledger (docs/operators.md, "Backup and restore").
  /** node-cron expression (UTC) of the scheduled backup; unset takes none. */
  BACKUP_CRON: z
    .string()
    .min(1)
    .refine((expression) => validCron(expression), 'must be a node-cron expression (evaluated in UTC), e.g. "15 1 * * *"')
    .optional(),
  /** Directory the scheduled backup writes to (it must exist). */
  BACKUP_DIR: z.string().min(1).default('./backups'),
  /** How many scheduled backups to keep in BACKUP_DIR: the newest N. */
  BACKUP_KEEP: positiveInt.max(10_000, 'must be at most 10000').default(7),
  /** The erasure ledger file (default: beside the SQLite file; ./data/erasure-ledger.ndjson on PostgreSQL). */
  ERASURE_LEDGER: z.string().min(1).optional(),

  // Outbound guard (src/lib/outbound-guard.ts).
  /** Ports the contact webhook and the LLM client may connect to besides 80 and 443, on every hop. */
  OUTBOUND_ALLOW_PORTS: list(parsePort).default([]),

  // --- Scheduled publishing and site search (src/features/news/schedule.ts) ---
  /**
   * Milliseconds added to the clock that scheduled articles are published by, so tests can move
   * time; refused when NODE_ENV=production. Every instance of a fleet must be given the same.
   */
  SITE_CLOCK_OFFSET_MS: z.coerce.number({ error: 'must be a whole number of milliseconds' }).int('must be a whole number of milliseconds').default(0),

  // Monitoring (docs/operators.md "Monitoring").
  /**
   * Bearer token a Prometheus scraper sends for GET /metrics; unset, /metrics answers 404 like
   * any unknown path. An RFC 6750 b64token, long enough not to be guessed. Never echoed.
   */
  METRICS_TOKEN: z
    .string()
    .min(32, 'must be at least 32 characters, e.g. the output of `openssl rand -hex 32`')
    .regex(/^[A-Za-z0-9\-._~+/]+=*$/, 'must be a bearer token of letters, digits and - . _ ~ + / (RFC 6750 b64token), e.g. the output of `openssl rand -hex 32`')
    .optional(),

  // The operators' console (src/features/console, docs/operators.md "The console").
  /** A console session with no request for this many minutes is over (idle expiry). */
  CONSOLE_SESSION_IDLE_MINUTES: positiveInt.max(1440, 'must be at most 1440 (a day)').default(30),
  /** A console session is over this many hours after sign-in, however busy (absolute expiry). */
  CONSOLE_SESSION_MAX_HOURS: positiveInt.max(720, 'must be at most 720 (30 days)').default(12),
  /** Passkey sign-in and enrolment requests per hour and client (a token bucket). */
  RATE_LIMIT_SIGN_IN_HOUR: positiveInt.default(RATE_LIMIT_DEFAULTS.RATE_LIMIT_SIGN_IN_HOUR),
});

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

/** The one line on stderr for a ConfigError before a server exits 78 (`npm start`, `npm run dev`). */
export function configErrorLine(error: ConfigError): string {
  return `${error.message}. See docs/operators.md, section "Configuration".`;
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
  const privateHook = privateWebhookProblem(rest.CONTACT_WEBHOOK_URL, rest.CONTACT_WEBHOOK_ALLOW_PRIVATE);
  if (privateHook) throw new ConfigError([privateHook]);
  if (rest.SITE_CLOCK_OFFSET_MS !== 0 && rest.NODE_ENV === 'production') {
    throw new ConfigError(['SITE_CLOCK_OFFSET_MS: only for tests; it is refused when NODE_ENV is production (the default)']);
  }
  if ((rest.CONTACT_NOTIFY_SMTP_URL === undefined) !== (rest.CONTACT_NOTIFY_TO === undefined) || (rest.CONTACT_NOTIFY_FROM !== undefined && rest.CONTACT_NOTIFY_TO === undefined)) {
    throw new ConfigError(['CONTACT_NOTIFY_SMTP_URL and CONTACT_NOTIFY_TO: set both to e-mail each submission to the team (CONTACT_NOTIFY_FROM optional), or neither']);
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
 * A CONTACT_WEBHOOK_URL whose host is written as a loopback, private or other non-public
 * address (or localhost) is refused by the outbox at every delivery unless
 * CONTACT_WEBHOOK_ALLOW_PRIVATE is set: say so at start-up instead of after the first stored
 * submission. A host name that resolves to such an address is still judged at each delivery
 * (DNS may change; the connect-time guard of src/lib/outbound-guard.ts). Only the host is
 * quoted: the URL's path and query may be its secret.
 */
function privateWebhookProblem(url: string | undefined, allowPrivate: boolean): string | undefined {
  if (url === undefined || allowPrivate) return undefined;
  const host = new URL(url).hostname;
  const range = isLoopbackHost(host) || host.endsWith('.localhost') ? 'loopback' : refusedRange(host);
  if (range === undefined || range === 'not an IP address') return undefined;
  return `CONTACT_WEBHOOK_URL: ${host} is a ${range} address, where the outbox refuses to deliver; set CONTACT_WEBHOOK_ALLOW_PRIVATE=true if the receiver is on this network on purpose`;
}

function listenOrigin(host: string, port: number): string {
  const h = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

/** The site origin, and for a loopback origin both spellings (localhost and 127.0.0.1). */
export function defaultOrigins(siteUrl: string): string[] {
  return siteOrigins(siteUrl);
}
