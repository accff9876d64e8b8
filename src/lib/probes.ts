/**
 * The liveness and readiness answers (`/healthz`, `/readyz`), the same whether the edge or
 * `astro dev` serves them, and the request id both echo in X-Request-Id.
 */
import { randomUUID } from 'node:crypto';
import { PATHS } from './paths.ts';

export interface ProbeAnswer {
  status: 200 | 503;
  headers: Record<string, string>;
  body: string;
  /** Why the service is not ready: for the log, never for whoever polls the probe (it may name hosts or paths). */
  failure?: unknown;
}

const PROBE_HEADERS = { 'cache-control': 'no-store', 'content-type': 'application/json; charset=utf-8' };

/** `/healthz` answers while the process runs; `/readyz` asks `ready` (it rejects when not ready). */
export async function answerProbe(path: string, ready: () => Promise<void>, details: Record<string, string>): Promise<ProbeAnswer> {
  if (path !== PATHS.readyz) return { status: 200, headers: PROBE_HEADERS, body: JSON.stringify({ status: 'ok', uptimeSeconds: Math.round(process.uptime()) }) };
  try {
    await ready();
    return { status: 200, headers: PROBE_HEADERS, body: JSON.stringify({ status: 'ready', ...details }) };
  } catch (failure) {
    return { status: 503, headers: PROBE_HEADERS, body: JSON.stringify({ status: 'unavailable', ...details }), failure };
  }
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The caller's X-Request-Id when it is a sane token (it goes into logs), otherwise a new UUID. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === 'string' && REQUEST_ID.test(header) ? header : randomUUID();
}
