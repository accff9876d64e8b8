import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isDailyQuotaRefusal, parseRetryAfterMs, readRateHeaders, type RateObservation } from '../../../src/client/rate-headers.ts';
import { afterResponse, afterSend, INITIAL_PACER_STATE, intervalFromRefusal, intervalFromResets, PACING_MARGIN_MS, paceDecision, type PacerState } from '../../../src/client/rate-pacing.ts';
import { DEFAULT_RETRY_POLICY, fullJitterDelay, retryDelay } from '../../../src/client/retry-policy.ts';
import { dataHeaders } from '../../../src/features/ratelimit/headers.ts';
import { createMemoryStore } from '../../../src/features/ratelimit/memory-store.ts';
import type { Window } from '../../../src/features/ratelimit/policies.ts';

/** 2026-03-20 12:00:00 UTC, the server's clock in these tests. */
const SERVER_NOW = Date.UTC(2026, 2, 20, 12);
const httpDate = (ms: number) => new Date(ms).toUTCString();

function headers(fields: Record<string, string | number>): Headers {
  return new Headers(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, String(v)])));
}

/** A state as after one response, `inFlight` requests still out. */
function stateAfter(observation: RateObservation, extra: Partial<PacerState> = {}): PacerState {
  return { ...INITIAL_PACER_STATE, observation, limitEstimate: (observation.minuteRemaining ?? 0) + 1, ...extra };
}

describe('reading the limit headers', () => {
  it('reads the three data-interface headers and measures the reset against the server’s Date', () => {
    const seen = readRateHeaders(
      headers({ 'X-RateLimit-Remaining': 7, 'X-RateLimit-Reset': SERVER_NOW / 1000 + 30, 'X-Daily-Quota-Remaining': 4990, Date: httpDate(SERVER_NOW) }),
      200,
      5_000,
      // The client's wall clock is ten minutes off; it must not matter.
      SERVER_NOW + 600_000,
    );
    expect(seen).toEqual({
      receivedAt: 5_000,
      admitted: true,
      minuteRemaining: 7,
      minuteResetS: SERVER_NOW / 1000 + 30,
      minuteFullInMs: 30_000,
      dayRemaining: 4990,
      serverNowMs: SERVER_NOW,
      serverDated: true,
    });
  });

  it('falls back to the client’s clock without a Date header, and ignores malformed values', () => {
    const seen = readRateHeaders(headers({ 'X-RateLimit-Remaining': '-1', 'X-RateLimit-Reset': SERVER_NOW / 1000 + 10, 'X-Daily-Quota-Remaining': 'lots' }), 200, 0, SERVER_NOW);
    expect(seen.minuteRemaining).toBeUndefined();
    expect(seen.dayRemaining).toBeUndefined();
    expect(seen.minuteFullInMs).toBe(10_000);
    expect(seen.serverDated).toBe(false);
  });

  it('keeps Retry-After of a refusal only, as delay-seconds or an HTTP-date', () => {
    expect(readRateHeaders(headers({ 'Retry-After': 3 }), 429, 0, SERVER_NOW).retryAfterMs).toBe(3_000);
    expect(readRateHeaders(headers({ 'Retry-After': 3 }), 200, 0, SERVER_NOW).retryAfterMs).toBeUndefined();
    expect(parseRetryAfterMs(httpDate(SERVER_NOW + 5_000), SERVER_NOW)).toBe(5_000);
    expect(parseRetryAfterMs('soon', SERVER_NOW)).toBeUndefined();
    expect(parseRetryAfterMs(null, SERVER_NOW)).toBeUndefined();
  });
});

describe('pacing decisions', () => {
  const observed = (fields: Partial<RateObservation>): RateObservation => ({
    receivedAt: 1_000,
    admitted: true,
    serverNowMs: SERVER_NOW,
    serverDated: true,
    ...fields,
  });

  it('sends freely before the first response and while requests remain', () => {
    expect(paceDecision(INITIAL_PACER_STATE, 0)).toEqual({ action: 'send' });
    expect(paceDecision(stateAfter(observed({ minuteRemaining: 2, minuteFullInMs: 20_000 })), 1_000)).toEqual({ action: 'send' });
  });

  it('counts requests in flight against what the last response left', () => {
    const state = stateAfter(observed({ minuteRemaining: 2, minuteFullInMs: 20_000 }), { sentSince: 2, inFlight: 2, limitEstimate: 10 });
    expect(paceDecision(state, 1_000).action).toBe('wait');
    expect(paceDecision({ ...state, sentSince: 1 }, 1_000)).toEqual({ action: 'send' });
  });

  it('waits one request’s refill time, not the whole window, when none remain', () => {
    // Ten a minute: the bucket is full again in 60 s; one request refills in 6 s. The estimate
    // counts one request less than the capacity bound (60 s / 9) to stay on the slow side.
    const state = stateAfter(observed({ minuteRemaining: 0, minuteFullInMs: 60_000 }), { limitEstimate: 10 });
    expect(paceDecision(state, 1_000)).toEqual({ action: 'wait', ms: Math.ceil(60_000 / 9 + PACING_MARGIN_MS) });
    // Time that has passed since the response counts.
    expect(paceDecision(state, 5_000)).toEqual({ action: 'wait', ms: Math.ceil(60_000 / 9 + PACING_MARGIN_MS - 4_000) });
    expect(paceDecision(state, 1_000 + 60_000 / 9 + PACING_MARGIN_MS)).toEqual({ action: 'send' });
  });

  it('waits the whole window when nothing is known of its capacity', () => {
    const state = stateAfter(observed({ minuteRemaining: 0, minuteFullInMs: 42_000 }));
    expect(paceDecision(state, 1_000)).toEqual({ action: 'wait', ms: 42_000 + PACING_MARGIN_MS });
  });

  it('uses a learnt refill time when it is shorter', () => {
    const resets = [1000, 1002, 1004, 1006, 1008];
    const state = stateAfter(observed({ minuteRemaining: 0, minuteFullInMs: 60_000 }), { resets });
    expect(intervalFromResets(resets)).toBe(2_250);
    expect(paceDecision(state, 1_000)).toEqual({ action: 'wait', ms: 2_250 + PACING_MARGIN_MS });
  });

  it('after a refusal, waits exactly Retry-After for the first request', () => {
    const refusal = observed({ admitted: false, minuteRemaining: 0, minuteFullInMs: 59_000, retryAfterMs: 2_000 });
    expect(paceDecision(stateAfter(refusal), 1_000)).toEqual({ action: 'wait', ms: 2_000 + PACING_MARGIN_MS });
  });

  it('stops when the daily quota is spent, but first hears out the requests in flight', () => {
    const spent = observed({ dayRemaining: 0, minuteRemaining: 5 });
    expect(paceDecision(stateAfter(spent, { inFlight: 1, sentSince: 1 }), 1_000)).toEqual({ action: 'await-response' });
    expect(paceDecision(stateAfter(spent), 1_000)).toEqual({ action: 'quota-spent', resetsAtMs: Date.UTC(2026, 2, 21) });
    const lastOne = observed({ dayRemaining: 1, minuteRemaining: 5 });
    expect(paceDecision(stateAfter(lastOne), 1_000)).toEqual({ action: 'send' });
    expect(paceDecision(stateAfter(lastOne, { sentSince: 1, inFlight: 1 }), 1_000)).toEqual({ action: 'await-response' });
  });

  it('learns the capacity and the refill time from responses', () => {
    let state = afterSend(afterSend(INITIAL_PACER_STATE));
    expect(state).toMatchObject({ sentSince: 2, inFlight: 2 });
    const reply = (remaining: number, resetS: number) =>
      readRateHeaders(headers({ 'X-RateLimit-Remaining': remaining, 'X-RateLimit-Reset': resetS, Date: httpDate(SERVER_NOW) }), 200, 0, 0);
    state = afterResponse(state, reply(9, SERVER_NOW / 1000 + 6));
    // The other request is still out: it may not be counted in this response.
    expect(state).toMatchObject({ sentSince: 1, inFlight: 1, limitEstimate: 10, resets: [SERVER_NOW / 1000 + 6] });
    state = afterResponse(state, reply(8, SERVER_NOW / 1000 + 12));
    expect(state).toMatchObject({ sentSince: 0, inFlight: 0, limitEstimate: 10 });
    expect(intervalFromResets(state.resets)).toBe(7_000);
    // A network error says nothing: the request stays counted as possibly spent.
    state = afterResponse(afterSend(state), undefined);
    expect(state).toMatchObject({ sentSince: 1, inFlight: 0 });
  });

  it('tells a daily-quota refusal from a minute one, preferring the header to the message', () => {
    const refusal = (fields: Partial<RateObservation>) => observed({ admitted: false, ...fields });
    expect(isDailyQuotaRefusal(refusal({ dayRemaining: 0 }), 'too many requests')).toBe(true);
    expect(isDailyQuotaRefusal(refusal({ dayRemaining: 12 }), 'the daily quota is spent')).toBe(false);
    expect(isDailyQuotaRefusal(refusal({}), 'rate limit exceeded: the daily quota is spent; it resets at 00:00 UTC')).toBe(true);
    expect(isDailyQuotaRefusal(refusal({}), 'rate limit exceeded: too many requests')).toBe(false);
  });
});

describe('backoff', () => {
  it('draws full jitter from an exponential bound that stops at the cap', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 500, maxDelayMs: 4_000 };
    const almostOne = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((attempt) => fullJitterDelay(attempt, policy, almostOne))).toEqual([499, 999, 1999, 3999, 3999, 3999]);
    expect(fullJitterDelay(3, policy, () => 0)).toBe(0);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 30 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, r) => {
        const delay = fullJitterDelay(attempt, policy, () => r);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThan(Math.min(4_000, 500 * 2 ** (attempt - 1)));
      }),
    );
  });

  it('never retries a refusal before its Retry-After', () => {
    expect(retryDelay(1, 3_000, DEFAULT_RETRY_POLICY, () => 0)).toBe(3_000);
    expect(retryDelay(2, 3_000, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(3_500);
    expect(retryDelay(2, undefined, DEFAULT_RETRY_POLICY, () => 0.5)).toBe(500);
  });
});

/**
 * The pacing rules against the server's own limiter (the memory store and the header code of
 * src/features/ratelimit) on a simulated clock: `workers` concurrent loops fetch `requests`
 * windows, each request reaching the server 2 ms after it is sent and its answer coming back
 * 1-40 ms later.
 */
function simulate(options: { limit: number; workers: number; requests: number; drained: boolean; startMs: number; latencies: number[] }) {
  const windows: Window[] = [
    { name: 'data-minute', limit: options.limit, kind: 'bucket', periodSeconds: 60 },
    { name: 'data-day', limit: 1_000_000, kind: 'utc-day', periodSeconds: 86_400 },
  ];
  const store = createMemoryStore({ maxKeys: 8 });
  let now = options.startMs;
  if (options.drained) for (let i = 0; i < options.limit; i++) store.takeNow('client', windows, now);

  type Worker = { phase: 'ready' | 'pacing' | 'backoff' | 'flight' | 'done'; until: number; attempt: number; response?: { status: number; headers: Headers } };
  const workers: Worker[] = Array.from({ length: options.workers }, () => ({ phase: 'ready', until: 0, attempt: 1 }));
  let state = INITIAL_PACER_STATE;
  let toStart = options.requests;
  let refusals = 0;
  let sent = 0;
  let firstAdmittedAt: number | undefined;

  for (let steps = 0; steps < 100_000; steps++) {
    for (const worker of workers) {
      if (worker.phase !== 'ready') continue;
      const decision = paceDecision(state, now);
      if (decision.action === 'wait') {
        Object.assign(worker, { phase: 'pacing', until: now + decision.ms });
        continue;
      }
      if (decision.action !== 'send') throw new Error(`unexpected ${decision.action}`);
      state = afterSend(state);
      const at = now + 2;
      const verdict = store.takeNow('client', windows, at);
      const fields = { ...dataHeaders(verdict, at), Date: httpDate(at) };
      const latency = options.latencies[sent++ % options.latencies.length]!;
      Object.assign(worker, { phase: 'flight', until: at + latency, response: { status: verdict.allowed ? 200 : 429, headers: new Headers(fields) } });
    }
    const active = workers.filter((w) => w.phase !== 'done');
    if (active.length === 0) break;
    now = Math.min(...active.map((w) => w.until));
    let answered = false;
    for (const worker of workers) {
      if (worker.phase === 'flight' && worker.until <= now) {
        const { status, headers: h } = worker.response!;
        const seen = readRateHeaders(h, status, now, now);
        state = afterResponse(state, seen);
        answered = true;
        if (status === 429) {
          refusals++;
          Object.assign(worker, { phase: 'backoff', until: now + retryDelay(worker.attempt, seen.retryAfterMs, DEFAULT_RETRY_POLICY, () => 0.5), attempt: worker.attempt + 1 });
        } else {
          firstAdmittedAt ??= now;
          Object.assign(worker, { phase: toStart > 1 ? 'ready' : 'done', attempt: 1 });
          toStart--;
        }
      } else if ((worker.phase === 'pacing' || worker.phase === 'backoff') && worker.until <= now) {
        worker.phase = 'ready';
      }
    }
    // A response wakes every pacing wait (the client races its sleep against the next response).
    if (answered) for (const worker of workers) if (worker.phase === 'pacing') worker.phase = 'ready';
    if (toStart <= 0 && workers.every((w) => w.phase !== 'flight' && w.phase !== 'backoff')) break;
  }
  return { refusals, elapsedMs: now - options.startMs, afterFirstMs: now - (firstAdmittedAt ?? now) };
}

describe('pacing against the server’s token bucket', () => {
  const scenario = fc.record({
    limit: fc.integer({ min: 1, max: 120 }),
    workers: fc.integer({ min: 1, max: 4 }),
    extra: fc.integer({ min: 1, max: 12 }),
    startMs: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2026, 0, 2) }),
    latencies: fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 8 }),
  });

  it('is never refused from a fresh bucket, and needs about one refill time per request beyond it', () => {
    fc.assert(
      fc.property(scenario, ({ limit, workers, extra, startMs, latencies }) => {
        const concurrent = Math.min(workers, limit);
        const result = simulate({ limit, workers: concurrent, requests: limit + extra, drained: false, startMs, latencies });
        expect(result.refusals).toBe(0);
        // Waiting for the whole window each time would take `extra` minutes; one refill time
        // (60 s / limit) per extra request, with slack for the cautious first estimates, is the
        // bar, on top of the round trips themselves.
        const refill = 60_000 / limit;
        const roundTrips = Math.ceil((limit + extra) / concurrent) * (Math.max(...latencies) + 2);
        expect(result.elapsedMs).toBeLessThanOrEqual(extra * refill * 2 + 3 * refill + 2_000 + roundTrips);
      }),
      { numRuns: 150 },
    );
  });

  it('starting on a drained bucket, is refused only for the requests sent before it knew', () => {
    fc.assert(
      fc.property(scenario, ({ limit, workers, extra, startMs, latencies }) => {
        const result = simulate({ limit, workers, requests: extra, drained: true, startMs, latencies });
        expect(result.refusals).toBeLessThanOrEqual(workers);
      }),
      { numRuns: 150 },
    );
  });

  it('learns a refill bound from a refusal that is never shorter than the true one', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 0, max: 120_000 }), fc.integer({ min: 0, max: 999 }), (limit, idle, drift) => {
        const windows: Window[] = [{ name: 'data-minute', limit, kind: 'bucket', periodSeconds: 60 }];
        const store = createMemoryStore({ maxKeys: 8 });
        const start = Date.UTC(2026, 0, 1) + drift;
        for (let i = 0; i < limit; i++) store.takeNow('c', windows, start);
        const at = start + (idle % Math.max(1, Math.floor(60_000 / limit)));
        const verdict = store.takeNow('c', windows, at);
        if (verdict.allowed) return;
        const seen = readRateHeaders(new Headers({ ...dataHeaders(verdict, at), Date: httpDate(at) }), 429, 0, 0);
        expect(intervalFromRefusal(seen)).toBeGreaterThanOrEqual(60_000 / limit);
      }),
    );
  });
});
