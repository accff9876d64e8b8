/**
 * Give memory back once a burst of traffic is over (issue 35: RSS back within 30 MB of idle 30 s
 * after a flood).
 *
 * During a flood some of each request's short-lived objects are promoted (the biggest share, an
 * endpoint request's object-literal getter, is gone: answer.ts says why), so the old generation
 * grows towards its next limit. When the requests stop, nothing allocates, no collection runs,
 * and the garbage stays resident: before that fix a contact flood left the process at 159 MB
 * (idle 124 MB) with 71 MB of heap "used", for as long as it stayed idle (bench/NOTES.md,
 * memory rounds 2 and 3). A regular full collection frees
 * the heap but not the resident pages (V8 keeps them for reuse); V8's "last resort" collection
 * (`gc({flavor: 'last-resort'})`, what it runs before giving up on an allocation) also releases
 * them: 159 -> 122 MB in one call.
 *
 * So every `intervalMs` this looks at the event loop and the resident set; once the loop was idle
 * for a whole interval and the resident set has grown `growthBytes` past where the last
 * compaction (or start-up) left it, it runs that collection, at most once per `minGapMs`. It
 * pauses the process (0.1 to 1 s on a loaded machine), so only when no request was being served.
 * `gc` comes from a fresh V8 context created with `--expose-gc` on (`v8.setFlagsFromString`, as
 * jest's leak detector gets it); the flag is turned off again, so no later context sees `gc`, and
 * `npm start`'s command line needs no flag.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from './log.ts';

export interface IdleCompactionOptions {
  /** How often the loop and the resident set are looked at, ms. */
  intervalMs?: number;
  /** Growth of the resident set over its last settled size worth giving back, bytes; 0 is off. */
  growthBytes?: number;
  /** The fewest ms between two compactions: a trickle of traffic never pays one per interval. */
  minGapMs?: number;
  /** The event loop's utilization over an interval below which the process counts as idle. */
  idleUtilization?: number;
}

type CollectGarbage = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

const MIB = 1024 * 1024;

function exposeGc(): CollectGarbage | undefined {
  setFlagsFromString('--expose-gc');
  try {
    const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
    return typeof gc === 'function' ? (gc as CollectGarbage) : undefined;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
}

/** Start watching; returns the function that stops it. The timer never keeps the process alive. */
export function startIdleCompaction(log: Logger, options: IdleCompactionOptions = {}): () => void {
  const { intervalMs = 5_000, growthBytes = 16 * MIB, minGapMs = 60_000, idleUtilization = 0.05 } = options;
  if (growthBytes <= 0) return () => {};
  const gc = exposeGc();
  if (gc === undefined) return () => {};
  let settled = process.memoryUsage.rss();
  let lastCompaction = -Infinity;
  let loop = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const utilization = performance.eventLoopUtilization(loop).utilization;
    loop = performance.eventLoopUtilization();
    const rss = process.memoryUsage.rss();
    // A lower resident set is the new reference: growth is counted from the lowest settled size.
    if (rss < settled) settled = rss;
    if (utilization > idleUtilization || rss - settled < growthBytes || performance.now() - lastCompaction < minGapMs) return;
    const started = performance.now();
    gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    lastCompaction = performance.now();
    settled = process.memoryUsage.rss();
    log.info({ rssMb: Math.round(rss / MIB), afterMb: Math.round(settled / MIB), ms: Math.round(lastCompaction - started) }, 'idle: heap compacted, memory given back');
    loop = performance.eventLoopUtilization();
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
