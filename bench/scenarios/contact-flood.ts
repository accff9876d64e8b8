/**
 * A flood of valid contact submissions from distinct clients (issue 35): `connections`
 * connections for `floodSeconds`, each request with an X-Forwarded-For of one of `clients`
 * distinct clients (the server trusting the load generator as its proxy), against a fresh
 * production server with the rate limits raised out of the way (every submission is stored, the
 * limiter still keeps a record per client). Before it was bounded, such a flood took the process
 * from 127 to 289 MB and kept it. Measured: statuses (all 200), idle RSS, peak RSS (VmHWM), RSS
 * `settleSeconds` after.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { load, shareOf, type LoadResult } from '../lib/load.ts';
import type { Running } from '../lib/proc.ts';
import type { Settings } from '../lib/settings.ts';
import { CONTACT_BODY } from './http.ts';
import { JUNK_FLOOD_TARGET } from './junk-flood.ts';

/** The same memory promise as every flood (operators' guide, "Memory"). */
export const CONTACT_FLOOD_TARGET = JUNK_FLOOD_TARGET;

export interface ContactFloodOutcome {
  clients: number;
  result: LoadResult;
  idleMb: number;
  peakMb: number;
  settledMb: number;
  /** Why the flood does not count (fewer than 99 % of answers 200), if so. */
  invalid?: string;
  met: boolean;
}

export async function runContactFlood(server: Running, settings: Settings): Promise<ContactFloodOutcome> {
  const { floodSeconds, settleSeconds, idleSeconds, clients } = settings.scale;
  await sleep(idleSeconds * 1000);
  const idleMb = server.rssMb();
  const result = await load(
    { origin: server.url, method: 'POST', paths: ['/api/contact'], headers: { 'content-type': 'application/json' }, body: CONTACT_BODY, connections: settings.connections, seconds: floodSeconds, clients },
    server,
  );
  const peakMb = server.peakRssMb();
  await sleep(settleSeconds * 1000);
  const settledMb = server.rssMb();
  const share = shareOf(result.statuses, 200);
  const invalid = share < 0.99 ? `only ${(share * 100).toFixed(1)} % of responses were 200: ${JSON.stringify(result.statuses)}` : undefined;
  const met = invalid === undefined && peakMb <= CONTACT_FLOOD_TARGET.peakRssMb && settledMb - idleMb <= CONTACT_FLOOD_TARGET.settledAboveIdleMb;
  return { clients, result, idleMb, peakMb, settledMb, ...(invalid ? { invalid } : {}), met };
}
