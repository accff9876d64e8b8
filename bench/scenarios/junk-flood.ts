/**
 * A flood of long and missing paths from one client (issue 31): 8,000-character misses under
 * `/_astro/` and elsewhere, and backslash spellings, from `connections` connections for
 * `floodSeconds`, against a fresh production server at the default rate limits. Before the edge
 * answered asset misses itself and the access log bounded its paths, such a flood took the
 * process from 117 to 317 MB (and kept it), and wrote 71 MB of log. Measured: statuses (429s must
 * appear: every path is charged to a limit), idle RSS, peak RSS (VmHWM), RSS `settleSeconds`
 * after, and the bytes of log written.
 */
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { load, shareOf, type LoadResult } from '../lib/load.ts';
import type { Running } from '../lib/proc.ts';
import type { Settings } from '../lib/settings.ts';

/** The memory promise of the operators' guide ("Memory"): near 150 MB under floods. */
export const JUNK_FLOOD_TARGET = { peakRssMb: 150, settledAboveIdleMb: 30 } as const;

export interface JunkFloodOutcome {
  result: LoadResult;
  idleMb: number;
  peakMb: number;
  settledMb: number;
  /** Bytes the server wrote to its log during the flood. */
  logBytes: number;
  /** Why the flood does not count (5xx answers, or no 429), if so. */
  invalid?: string;
  met: boolean;
}

/** `count` distinct long paths: misses under /_astro/, missing pages, refused backslash spellings. */
export function junkPaths(count = 300, length = 8_000): string[] {
  const filler = 'a'.repeat(length);
  const paths: string[] = [];
  for (let i = 0; i < count; i++) {
    if (i % 3 === 0) paths.push(`/_astro/${i}-${filler}.js`);
    else if (i % 3 === 1) paths.push(`/missing-${i}-${filler}`);
    else paths.push(`/\\_image?href=/favicon.svg&n=${i}-${filler}`);
  }
  return paths;
}

export async function runJunkFlood(server: Running, settings: Settings): Promise<JunkFloodOutcome> {
  const { floodSeconds, settleSeconds, idleSeconds } = settings.scale;
  await sleep(idleSeconds * 1000);
  const idleMb = server.rssMb();
  const logBefore = statSync(server.logFile).size;
  const result = await load({ origin: server.url, method: 'GET', paths: junkPaths(), connections: settings.connections, seconds: floodSeconds }, server);
  const peakMb = server.peakRssMb();
  const logBytes = statSync(server.logFile).size - logBefore;
  await sleep(settleSeconds * 1000);
  const settledMb = server.rssMb();
  const errors = Object.entries(result.statuses).filter(([status]) => !/^[234]\d\d$/.test(status));
  const invalid = errors.length > 0 ? `answers other than 2xx-4xx: ${JSON.stringify(Object.fromEntries(errors))}` : shareOf(result.statuses, 429) === 0 ? 'no 429: some path is not charged to a limit' : undefined;
  const met = invalid === undefined && peakMb <= JUNK_FLOOD_TARGET.peakRssMb && settledMb - idleMb <= JUNK_FLOOD_TARGET.settledAboveIdleMb;
  return { result, idleMb, peakMb, settledMb, logBytes, ...(invalid ? { invalid } : {}), met };
}
