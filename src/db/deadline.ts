/**
 * One deadline, passed explicitly from the caller down to the statement (issue 35): an instant
 * and the one AbortSignal that fires there. kysely takes cancellation per call
 * (`AbortableOperationOptions`); `within` hands this signal to the connection kysely acquires,
 * so the wait for a pooled connection, for the SQLite writer's turn and for another process's
 * lock all end at it, and no statement but ROLLBACK starts once it has fired: work the caller
 * gave up on never commits later. Nothing is ambient: what is not handed a deadline has none.
 */
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';
import { DeadlineExceeded } from './storage-errors.ts';

export class Deadline {
  /** The instant, epoch ms. */
  readonly at: number;
  /** What was left of it when it was made, in ms: for messages. */
  readonly budgetMs: number;
  #controller: AbortController | undefined;
  #timer: NodeJS.Timeout | undefined;

  private constructor(at: number, now: number) {
    this.at = at;
    this.budgetMs = Math.max(0, Math.round(at - now));
  }

  /** `ms` from now. */
  static after(ms: number, now = Date.now()): Deadline {
    return new Deadline(now + Math.max(0, ms), now);
  }

  /** At an instant (epoch ms), such as a request's `deadline`. */
  static at(epochMs: number, now = Date.now()): Deadline {
    return new Deadline(epochMs, now);
  }

  /** Milliseconds left, never below 0. */
  remainingMs(now = Date.now()): number {
    return Math.max(0, this.at - now);
  }

  /**
   * Aborts at `at` with a DeadlineExceeded reason. Its timer is the deadline's only one, armed
   * the first time something waits on it and cleared by `dispose()`.
   */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const fire = () => controller.abort(new DeadlineExceeded(`the database did not answer within ${this.budgetMs} ms, the caller's deadline`));
      const left = this.at - Date.now();
      if (left <= 0) fire();
      else this.#timer = setTimeout(fire, left);
    }
    return this.#controller.signal;
  }

  /** Clear the timer once the work it bounds is over; the signal then never fires. */
  dispose(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  [Symbol.dispose](): void {
    this.dispose();
  }
}

/**
 * `work` on one connection bound to `deadline` (a Deadline, or a budget in ms from now, whose
 * timer is then cleared when `work` ends). The connection is acquired with the deadline's signal:
 * waits for it, for the SQLite writer's turn and for a lock end at the deadline, and no statement
 * but ROLLBACK starts after it. The returned promise settles by the deadline even when the
 * database has gone silent: once the signal has fired, `work` has the rest of that turn of the
 * event loop to report its own cause (a lock, a statement timeout), then the deadline is the answer.
 * A PostgreSQL statement already sent by then is cancelled at the server (postgres-deadline-driver.ts).
 * A cancel can arrive just after a statement committed; a write that must not land late runs in
 * a transaction, whose COMMIT is then refused.
 */
export async function within<T>(kysely: Kysely<Database>, deadline: Deadline | number, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  const bound = typeof deadline === 'number' ? Deadline.after(deadline) : deadline;
  const signal = bound.signal;
  if (signal.aborted) throw new DeadlineExceeded('the deadline had passed before the database was asked; nothing was written');
  let connected = false;
  const attempt = kysely.connection().execute((db) => {
    connected = true;
    return work(db);
  }, { signal });
  try {
    return await settledBy(attempt, signal);
  } catch (error) {
    // kysely ends the wait for a connection with the signal's reason: say what was waited for.
    if (error === signal.reason && !connected) throw new DeadlineExceeded(`no database connection became available within ${bound.budgetMs} ms`);
    throw error;
  } finally {
    if (bound !== deadline) bound.dispose();
  }
}

/** `work`, or the signal's reason once it has fired and `work` has had the rest of the turn to settle. */
function settledBy<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  // If the deadline wins, the work's own failure arrives later with no one awaiting it.
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const expire = () => setImmediate(() => reject(signal.reason));
    if (signal.aborted) expire();
    else signal.addEventListener('abort', expire, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', expire));
  });
}
