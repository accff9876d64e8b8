/**
 * The liveness and readiness answers (`/healthz`, `/readyz`), the same whether the edge or
 * `astro dev` serves them, and the request id both echo in X-Request-Id.
 */
import { randomBytes } from 'node:crypto';
import { PATHS } from './paths.ts';

export interface ProbeAnswer {
  status: 200 | 503;
  headers: Record<string, string>;
  body: string;
}

const PROBE_HEADERS = { 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' };

/**
 * `/healthz` answers while the process runs; `/readyz` asks `ready` (it rejects when not ready,
 * and logs why itself: the reason may name hosts or paths, so it never reaches whoever polls).
 */
export async function answerProbe(path: string, ready: () => Promise<void>, details: Record<string, string>): Promise<ProbeAnswer> {
  if (path !== PATHS.readyz) return { status: 200, headers: PROBE_HEADERS, body: JSON.stringify({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) }) };
  try {
    await ready();
    return { status: 200, headers: PROBE_HEADERS, body: JSON.stringify({ status: 'ready', ...details }) };
  } catch {
    return { status: 503, headers: PROBE_HEADERS, body: JSON.stringify({ status: 'unavailable', ...details }) };
  }
}

/** How old a readiness result may be when it answers a probe. */
export const READY_MAX_AGE_MS = 1_000;

/**
 * `check` behind a short memory: a result (success or failure) answers every caller for
 * `maxAgeMs` after it came in, and while a check runs, callers wait for that one instead of
 * starting another. So /readyz costs at most one database round trip a second however often it
 * is polled (a probe flood cannot compete with contact writes for the pool), and a change of
 * state shows within about a second. `now` is injectable for tests.
 */
export function recentCheck(check: () => Promise<void>, maxAgeMs = READY_MAX_AGE_MS, now: () => number = () => performance.now()): () => Promise<void> {
  let running: Promise<void> | undefined;
  let last: { at: number; result: Promise<void> } | undefined;
  return () => {
    if (running) return running;
    if (last !== undefined && now() - last.at < maxAgeMs) return last.result;
    const result = Promise.resolve().then(check);
    running = result;
    const done = () => {
      running = undefined;
      last = { at: now(), result };
    };
    result.then(done, done);
    return result;
  };
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Random per process (48 bits), so ids of two instances or two runs do not collide in merged logs. */
let processPrefix: string | undefined;
let issued = 0;

/**
 * A new request id: the process's random prefix and a counter (`5f0c2a9be41d-1c`). Unique within the
 * process by construction and across processes with overwhelming probability, at a fraction of
 * randomUUID's cost on every request (about 8 us at the edge, bench/NOTES.md).
 */
export function newRequestId(): string {
  processPrefix ??= randomBytes(6).toString('hex');
  return `${processPrefix}-${(++issued).toString(36)}`;
}

/** `header` (a trusted proxy's X-Request-Id; the edge passes undefined otherwise) when it is a sane token (it goes into logs), otherwise a new id. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : newRequestId();
}
