/**
 * Whether writes currently work, as far as the last write tells: set by a write that failed for
 * want of storage (disk full, read-only, I/O error), cleared by one that committed. Both engines'
 * connections report to it; `DbHandle.ping` reads it.
 */
import { isWriteFailure } from './storage-errors.ts';

export class WriteHealth {
  failure: { code: string; message: string; at: number } | undefined;
  wrote(): void {
    this.failure = undefined;
  }
  failed(error: unknown): void {
    if (isWriteFailure(error)) {
      const { code, message } = error as { code: string; message: string };
      this.failure = { code, message: `${code}: ${message}`, at: Date.now() };
    }
  }
}
