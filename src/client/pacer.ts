/**
 * The data client's shared view of the rate limits, and its abortable sleep. The decisions are
 * rate-pacing.ts's pure functions; this module holds the state and does the waiting.
 */
import { DailyQuotaExceededError } from './errors.ts';
import type { RateObservation } from './rate-headers.ts';
import { afterResponse, afterSend, INITIAL_PACER_STATE, paceDecision } from './rate-pacing.ts';

/**
 * Resolves after `ms`, or as soon as `wake` settles; rejects with the signal's reason when it
 * aborts. Leaves no timer or listener behind either way.
 */
export function sleep(ms: number, signal: AbortSignal, wake?: Promise<void>): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', onAbort, { once: true });
    void wake?.then(done);
  });
}

/** A promise and the function that resolves it (`Promise.withResolvers`, which older browsers lack). */
function signalled(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * The shared view of the limits across concurrent months: every request asks `acquire` first
 * and reports its response's headers through `report`. The state and the decisions are
 * rate-pacing.ts's pure functions; this only holds the state and does the waiting.
 */
export function createPacer() {
  let state = INITIAL_PACER_STATE;
  let wake = signalled();

  return {
    /** Resolves when the next request may be sent (and counts it as sent). */
    async acquire(signal: AbortSignal, onWait: (ms: number) => void): Promise<void> {
      for (;;) {
        signal.throwIfAborted();
        const decision = paceDecision(state, performance.now());
        switch (decision.action) {
          case 'send':
            state = afterSend(state);
            return;
          case 'quota-spent':
            throw new DailyQuotaExceededError(new Date(decision.resetsAtMs));
          case 'await-response':
            await sleep(60_000, signal, wake.promise);
            break;
          case 'wait':
            onWait(decision.ms);
            // Woken early by any response: its headers may change the answer either way.
            await sleep(decision.ms, signal, wake.promise);
            break;
        }
      }
    },
    /** A request sent after `acquire` is over; `seen` is what its response said, if there was one. */
    report(seen: RateObservation | undefined): void {
      state = afterResponse(state, seen);
      const previous = wake;
      wake = signalled();
      previous.resolve();
    },
  };
}

export type Pacer = ReturnType<typeof createPacer>;
