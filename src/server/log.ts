/**
 * Structured JSON-line logging (pino). One logger per process, created by the entry and passed
 * down; request lines carry the request id that is echoed in X-Request-Id.
 *
 * What a line may not carry, however it got there: a configured secret (every form of each value
 * is blanked in the finished line, src/lib/redact-secrets.ts), a URL's password (blanked in
 * errors and URL fields), a request or response body an error object holds (the AI SDK's
 * `requestBodyValues` is the system prompt and every visitor turn; dropped from serialised
 * errors), and secret header fields.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';
import { secretRedactor, type SecretRedactor } from '../lib/redact-secrets.ts';
import { redactUrlsIn } from '../lib/redact-url.ts';
import { censor, censorChildBindings, censorNested, censorOwn, TOP_LEVEL_PATHS } from './log-fields.ts';

export type { Logger };

export interface LogOptions {
  level: LevelWithSilent;
  /**
   * Buffer writes (LOG_WRITE_BYTES) instead of a syscall per line; what waits is written at least
   * every `flushIntervalMs` and on shutdown.
   */
  buffered?: boolean;
  /** How long a buffered line may wait, ms (default LOG_FLUSH_INTERVAL_MS). */
  flushIntervalMs?: number;
  /** Destination stream; stdout by default. Tests pass a collecting stream. */
  stream?: NodeJS.WritableStream;
  /** The configured secret values (src/app/config.ts `secretValues`): never written, in any form. */
  secrets?: readonly (string | undefined)[];
}

/** Each logger's secret redactor, for the access log's own writes (createRequestLog). */
const redactors = new WeakMap<Logger, SecretRedactor>();

/**
 * Most bytes of log lines that wait for stdout when writes are asynchronous (production). pino's
 * destination (sonic-boom) buffers without a limit by default: when stdout drains slower than a
 * flood writes lines (a terminal, a stalled pipe to a log collector), every request's line stayed
 * in memory. Past this bound lines are dropped, and one warning a second says how many.
 */
export const LOG_BUFFER_MAX_BYTES = 4 * 1024 * 1024;

/**
 * How many bytes of lines a buffered logger gathers before it writes them (sonic-boom's
 * `minLength`; its `maxWrite`, the most one write takes, must be larger). Each asynchronous
 * `fs.write` costs about 25 us of process CPU whatever its size (the thread pool's hand-off and
 * wake-ups; 6 us for a synchronous one, which a slow disk would turn into a stalled event loop):
 * at 4 KiB, 6 to 8 % of a cached answer's or a 429's CPU went to the access log's writes
 * (bench/NOTES.md, "Fixed cost per request"). At 64 KiB that is 16 times rarer; an idle
 * server's lines still wait at most LOG_FLUSH_INTERVAL_MS, and what waits stays under
 * LOG_BUFFER_MAX_BYTES.
 */
export const LOG_WRITE_BYTES = 64 * 1024;
const LOG_MAX_WRITE_BYTES = 2 * LOG_WRITE_BYTES;

/**
 * The longest a buffered line waits before it is written, ms. Under load the write buffer fills
 * and is written long before; an idle server's one warning waited for the next block, minutes,
 * or for SIGTERM. One write a second costs nothing next to a write per line.
 */
export const LOG_FLUSH_INTERVAL_MS = 1_000;

/**
 * Each line encoded at once into one block of memory of our own, reused; a full block
 * (LOG_WRITE_BYTES), or what a flush finds, goes to sonic-boom (utf8 mode) as one flat string,
 * which node's `fs.write` encodes into memory freed when the write completes. A line's string is
 * garbage at once; what waits for stdout is one string per block, in V8's heap, where it counts
 * towards the next full collection.
 *
 * No Buffer is handed over: Buffers waiting for a write outlive young-generation collections in a
 * flood, and a promoted Buffer's memory (outside the heap) comes back only at a full collection,
 * which V8 starts for outside memory only past 64 MB. As a Buffer per line (`Buffer.from`, a slice
 * of node's 64 KiB pool slab, holding the slab) they grew a flood of contact submissions by up to
 * 60 MB; as a Buffer per block, a loop of log lines by 70 MB (bench/NOTES.md, "Memory round 5").
 * Nor a string per line: sonic-boom's utf8 mode measures the waiting string's UTF-8 length on
 * each write, flattening the growing concatenation once per line.
 */
function encodeInBlocks(boom: ReturnType<typeof pino.destination>): pino.DestinationStream & { flush(cb?: (err?: Error) => unknown): void } {
  const block = Buffer.allocUnsafeSlow(LOG_MAX_WRITE_BYTES);
  let used = 0;
  const handOver = () => {
    if (used === 0) return;
    const text = block.toString('utf8', 0, used);
    used = 0;
    boom.write(text);
  };
  // What waits here when the process exits without a flush (sonic-boom writes its own then).
  process.once('exit', () => {
    try {
      handOver();
      boom.flushSync();
    } catch {
      // stdout closed: nothing left to write to.
    }
  });
  return {
    write: (line: string) => {
      // A UTF-16 code unit is at most 3 bytes of UTF-8.
      if (used + line.length * 3 > block.length) {
        handOver();
        if (line.length * 3 > block.length) return void boom.write(line);
      }
      used += block.write(line, used);
      if (used >= LOG_WRITE_BYTES) handOver();
    },
    flush: (cb) => {
      handOver();
      boom.flush(cb);
    },
  };
}

/** Count the lines a full buffer dropped, and say how many once a second (through `log`). */
function reportDrops(boom: pino.DestinationStream & NodeJS.EventEmitter, log: Logger): void {
  let dropped = 0;
  // sonic-boom drops what it is handed whole: here a block of lines (encodeInBlocks).
  boom.on('drop', (block: string) => {
    const first = dropped === 0;
    for (let at = block.indexOf('\n'); at !== -1; at = block.indexOf('\n', at + 1)) dropped++;
    if (!first) return;
    setTimeout(() => {
      log.warn({ droppedLines: dropped }, 'log lines dropped: stdout did not keep up');
      dropped = 0;
    }, 1_000).unref();
  });
}

export function createLogger({ level, buffered = false, flushIntervalMs = LOG_FLUSH_INTERVAL_MS, stream, secrets = [] }: LogOptions): Logger {
  const blocks = buffered ? { minLength: LOG_WRITE_BYTES, maxWrite: LOG_MAX_WRITE_BYTES, maxLength: LOG_BUFFER_MAX_BYTES } : { minLength: 0 };
  const boom = stream ? undefined : pino.destination({ dest: 1, sync: !buffered, ...blocks });
  const encoder = boom && buffered ? encodeInBlocks(boom) : undefined;
  const destination = stream ?? encoder ?? boom!;
  const redact = secretRedactor(secrets);
  const log = pino(
    {
      level,
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      // Secret fields by name (log-fields.ts): pino's `redact` at the top level, ours one level
      // down; `err` is censored by its serializer, once it is a plain object.
      formatters: { level: (label) => ({ level: label }), log: (fields) => censorNested(fields, 'err') },
      redact: { paths: TOP_LEVEL_PATHS, censor },
      serializers: { err: serializeError },
      // The finished line, whatever put the value where: message, stack, nested field, cause.
      hooks: { streamWrite: redact },
    },
    destination,
  );
  redactors.set(log, redact);
  censorChildBindings(log);
  if (encoder) {
    // Unref'd: it never keeps the process alive; it dies with the process, as the logger does.
    setInterval(() => {
      try {
        pendingRequestLines.get(log)?.();
        encoder.flush();
      } catch {
        // A destination closed at shutdown: nothing left to write.
      }
    }, flushIntervalMs).unref();
  }
  if (boom && buffered) reportDrops(boom, log);
  return log;
}

/** Access-log lines not yet handed to a logger's destination (see createRequestLog). */
const pendingRequestLines = new WeakMap<Logger, () => void>();

/** Flush a buffered logger before the process exits (no-op for plain streams). */
export function flushLogger(log: Logger): void {
  try {
    pendingRequestLines.get(log)?.();
    log.flush();
  } catch {
    // A closed destination has nothing left to flush.
  }
}

/**
 * pino's error serializer, then every string in the result (message, stack, causes) with URL
 * passwords hidden: a driver's error may quote the connection string it was given; and its
 * secret fields censored (log-fields.ts), as every other field's.
 */
function serializeError(error: unknown): unknown {
  const serialized: unknown = scrub(error instanceof Error ? pino.stdSerializers.err(error) : error, 0);
  return typeof serialized === 'object' && serialized !== null && !Array.isArray(serialized) ? censorNested(censorOwn(serialized as Record<string, unknown>)) : serialized;
}

/**
 * Fields of error objects that hold a request or response body (the AI SDK's APICallError
 * carries `requestBodyValues`, the whole prompt with the visitor's turns, and `responseBody`):
 * personal data and prompts stay out of the logs, which outlive contact retention and erasure.
 */
const BODY_FIELDS = new Set(['requestBodyValues', 'responseBody', 'body', 'prompt', 'messages']);

function scrub(value: unknown, depth: number): unknown {
  if (typeof value === 'string') return redactUrlsIn(value);
  if (depth > 4 || typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => scrub(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, BODY_FIELDS.has(key) ? '[omitted]' : scrub(item, depth + 1)]));
}

/** One request, as the access log records it. */
export interface RequestRecord {
  reqId: string;
  method: string | undefined;
  /** The normalised path, whole: the line carries its first LOGGED_PATH_CHARS characters. */
  path: string;
  status: number;
  /** Wall time from the request's arrival to its response's close, ms (two decimals). */
  ms: number;
  /** True when the response did not finish (the client went away, or we destroyed it). */
  aborted: boolean;
}

/**
 * How much of a path a request line carries; a longer one is cut there and its length given
 * (`pathLength`). A request line may be 16 KiB: logged whole, a flood of long missing paths made
 * 70 MB of log in 15 s and held most of it in memory while stdout drained (issue 31).
 */
export const LOGGED_PATH_CHARS = 256;

/** The path fields of a request line: the path, or its prefix and its length. */
function pathFields(path: string): { path: string; pathLength?: number } {
  return path.length <= LOGGED_PATH_CHARS ? { path } : { path: path.slice(0, LOGGED_PATH_CHARS), pathLength: path.length };
}

/**
 * The status a client really got, for the log: the response's own once its head went out (or it
 * finished); 499 (nginx's "client closed request") when the connection ended before any head, as
 * when a client drops mid-body, whatever `statusCode` still says (200, its initial value).
 */
export function statusSent(res: { headersSent: boolean; writableFinished: boolean; statusCode: number }): number {
  return res.headersSent || res.writableFinished ? res.statusCode : 499;
}

/** Access-log lines handed to the destination in one write once this many characters wait. */
const BATCH_CHARS = 16 * 1024;

/**
 * The access log: one line per request, the same line `log.info({...}, 'request')` writes (same
 * level label, time, bindings, fields and order), but assembled from pino's own pre-serialised
 * parts. pino walks the object, looks up serializers and redaction and formats the time for every
 * line: 20 to 40 us per request at the edge (bench/NOTES.md), most of the fixed cost of a cached
 * answer. The ISO time is formatted once per millisecond. Lines are joined and handed to pino's
 * destination once per event-loop turn (or every 16 KiB): its write costs 2 to 3 us per call
 * whatever the length, a line per call was a tenth of a cached answer. `flushLogger` writes what
 * waits. A logger without those parts (not pino's own) gets `log.info`.
 */
export function createRequestLog(log: Logger): (record: RequestRecord) => void {
  const internals = log as unknown as Record<symbol, unknown>;
  const prefix = (internals[pino.symbols.lsCacheSym] as Record<number, string> | undefined)?.[log.levels.values['info']!];
  const chindings = internals[pino.symbols.chindingsSym];
  const stream = internals[pino.symbols.streamSym] as { write(line: string): unknown } | undefined;
  // A client can put anything in a path; a configured secret still never reaches the log.
  const redact = redactors.get(log) ?? ((text: string) => text);
  const viaPino = (r: RequestRecord) => log.info({ reqId: r.reqId, method: r.method, ...pathFields(r.path), status: r.status, ms: r.ms, aborted: r.aborted || undefined }, 'request');
  if (typeof prefix !== 'string' || typeof chindings !== 'string' || typeof stream?.write !== 'function' || log.levels.values['info'] !== 30) return viaPino;
  let lastMs = 0;
  let lastTime = '';
  let batch = '';
  const flush = () => {
    if (batch === '') return;
    const lines = batch;
    batch = '';
    stream.write(redact(lines));
  };
  pendingRequestLines.set(log, flush);
  // The method's field, made once per method: node's parser knows a fixed set of them.
  const methodFields = new Map<string, string>();
  const methodField = (name: string) => {
    const field = `,"method":${JSON.stringify(name)}`;
    if (methodFields.size < 64) methodFields.set(name, field);
    return field;
  };
  return (r) => {
    if (!log.isLevelEnabled('info')) return;
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      lastTime = `,"time":"${new Date(now).toISOString()}"`;
    }
    const method = r.method === undefined ? '' : (methodFields.get(r.method) ?? methodField(r.method));
    if (batch === '') setImmediate(flush);
    const path = r.path.length <= LOGGED_PATH_CHARS ? `"path":${JSON.stringify(r.path)}` : `"path":${JSON.stringify(r.path.slice(0, LOGGED_PATH_CHARS))},"pathLength":${r.path.length}`;
    batch += `${prefix}${lastTime}${chindings},"reqId":${JSON.stringify(r.reqId)}${method},${path},"status":${r.status},"ms":${r.ms}${r.aborted ? ',"aborted":true' : ''},"msg":"request"}\n`;
    if (batch.length >= BATCH_CHARS) flush();
  };
}
