/**
 * Structured JSON-line logging (pino). One logger per process, created by the entry and passed
 * down; request lines carry the request id that is echoed in X-Request-Id.
 */
import { pino, type Logger, type LevelWithSilent } from 'pino';

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
