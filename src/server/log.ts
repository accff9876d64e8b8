/**
 * Structured JSON-line logging (pino). One logger per process, created by the entry and passed
 * down; request lines carry the request id that is echoed in X-Request-Id.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { redactUrl, redactUrlsIn } from '../lib/redact-url.ts';

export type { Logger };

export interface LogOptions {
  level: LevelWithSilent;
  /** Buffer writes (4 KiB) instead of a syscall per line; flushed on shutdown. */
  buffered?: boolean;
  /** Destination stream; stdout by default. Tests pass a collecting stream. */
  stream?: NodeJS.WritableStream;
}

export function createLogger({ level, buffered = false, stream }: LogOptions): Logger {
  const destination = stream ?? pino.destination({ dest: 1, sync: !buffered, minLength: buffered ? 4096 : 0 });
  return pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: SECRET_PATHS, censor },
      serializers: { err: serializeError },
    },
    destination,
  );
}

/** Flush a buffered logger before the process exits (no-op for plain streams). */
export function flushLogger(log: Logger): void {
  try {
    log.flush();
  } catch {
    // A closed destination has nothing left to flush.
  }
}

/**
 * Fields that hold a secret or a URL that may carry one, wherever a log call puts them at the
 * top level or one level down. Secrets are replaced; URLs keep everything but the password.
 */
const URL_FIELDS = ['DATABASE_URL', 'REDIS_URL', 'LLM_BASE_URL', 'CONTACT_WEBHOOK_URL', 'database', 'redisUrl', 'webhookUrl', 'baseUrl', 'connectionString'];
const SECRET_FIELDS = ['LLM_API_KEY', 'apiKey', 'password', 'authorization', 'cookie'];
const SECRET_PATHS = [...URL_FIELDS, ...SECRET_FIELDS].flatMap((field) => [field, `*.${field}`]).concat(['req.headers.authorization', 'req.headers.cookie']);

function censor(value: unknown, path: string[]): unknown {
  const field = path[path.length - 1] ?? '';
  return URL_FIELDS.includes(field) && typeof value === 'string' ? redactUrl(value) : '[redacted]';
}

/**
 * pino's error serializer, then every string in the result (message, stack, causes) with URL
 * passwords hidden: a driver's error may quote the connection string it was given.
 */
function serializeError(error: unknown): unknown {
  const serialized: unknown = error instanceof Error ? pino.stdSerializers.err(error) : error;
  return scrub(serialized, 0);
}

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactUrlsIn(value);
  if (depth > 4 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scrub(item, depth + 1)]));
}
