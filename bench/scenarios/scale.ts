/**
 * How the server scales with the news archive and with the number of clients. For each size
 * (10, 1,000 and 5,000 generated articles) a throw-away copy of the repository is built once
 * (astro-build.ts), and the production server (`npm start`'s command line, run in the copy) is
 * measured on a fresh copy of the seeded database: start-up until /healthz answers, idle RSS,
 * peak RSS under a flood of distinct clients (X-Forwarded-For, the server trusting the load
 * generator as its proxy), RSS after the flood, the size of /news/ and /rss.xml, and the chat's
 * time to first byte. At the largest size the same flood also runs from one client, on a fresh
 * server, beside the flood of distinct clients.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { load, median, shareOf, type LoadResult } from '../lib/load.ts';
import { startServer, type Running } from '../lib/proc.ts';
import type { ScaleSettings, Settings } from '../lib/settings.ts';
import { startCommand } from '../lib/start-command.ts';
import { buildSiteCopy } from './astro-build.ts';
import { runChat } from './chat.ts';

/** The targets the scale table is judged against. */
export const SCALE_TARGET = {
  /** Peak RSS (VmHWM) under the flood of distinct clients at the largest size, MB. */
  peakRssMb: 150,
  /** RSS `settleSeconds` after a flood: at most this much above idle, MB. */
  settledAboveIdleMb: 30,
  /** Chat time to first byte, p50 at the largest size, ms. */
  chatP50Ms: 20,
  /** Start-up time and idle RSS at the largest size over the smallest: flat, at most this ratio. */
  flatRatio: 1.5,
} as const;

/** One flood of a fresh server: req/s, and memory at its peak and after it. */
export interface FloodOutcome {
  clients: number;
  result: LoadResult;
  /** RSS the server had idle before the flood, MB. */
  idleMb: number;
  /** VmHWM after the flood (the process's peak so far), MB. */
  peakMb: number;
  /** VmRSS `settleSeconds` after the flood ended, MB. */
  settledMb: number;
  /** Why the flood does not count (wrong statuses), if so. */
  invalid?: string;
}

export interface SizeOutcome {
  articles: number;
  buildSeconds: number;
  /** Median time from spawning the server to the first 200 from /healthz, ms. */
  startupMs?: number;
  /** Median VmRSS `idleSeconds` after /healthz first answered, MB. */
  idleMb?: number;
  flood?: FloodOutcome;
  /** Body bytes with Accept-Encoding: identity. */
  newsBytes?: number;
  rssBytes?: number;
  chatP50Ms?: number;
  chatInvalid?: string;
  error?: string;
}

export interface ScaleOutcome {
  settings: ScaleSettings;
  connections: number;
  chatWorkers: number;
  /** Articles of the site itself, beside the generated ones. */
  ownArticles: number;
  commit: string;
  sizes: SizeOutcome[];
  /** At the largest size: the flood from one client, on a fresh server (its many-client twin is that size's `flood`). */
  oneClient?: FloodOutcome;
  seconds: number;
}

export interface ScaleContext {
  repo: string;
  workDir: string;
  settings: Settings;
  /** The seeded database; each server gets a fresh copy. */
  seededDb: string;
  /** Paths of the flood, taken in turn. */
  floodPaths: readonly string[];
  /** The environment of a server under test, with these variables added. */
  serverEnv: (extra: Record<string, string>) => Record<string, string>;
  ownArticles: number;
  commit: string;
  say: (line: string) => void;
}

/**
 * The flood's paths: the data API (every 31-day range in turn), /api/news, / and /sellers.json,
 * a quarter each.
 */
export function floodPaths(rangePaths: readonly string[]): string[] {
  return rangePaths.flatMap((data) => [data, '/api/news', '/', '/sellers.json']);
}

/** Spawn to the first 200 from /healthz: the start-up an orchestrator's probe sees. */
async function startTimed(context: ScaleContext, copyDir: string, dist: string, db: string, logFile: string): Promise<{ server: Running; ms: number }> {
  const start = startCommand(copyDir);
  const started = performance.now();
  const server = await startServer({
    name: 'server (scale)',
    args: start.args,
    cwd: copyDir,
    // TRUST_PROXY: the load generator is the proxy, its X-Forwarded-For names the client.
    env: { ...start.env, ...context.serverEnv({ DATABASE_URL: db, DIST_DIR: dist, TRUST_PROXY: '127.0.0.1' }) },
    logFile,
    pollMs: 5,
    timeoutMs: 120_000,
  });
  for (;;) {
    try {
      const response = await fetch(`${server.url}/healthz`);
      await response.arrayBuffer();
      if (response.status === 200) break;
    } catch {
      // Not answering yet.
    }
    await sleep(5);
  }
  return { server, ms: performance.now() - started };
}

/** A fresh copy of the seeded database (SQLite's online backup: the WAL's pages included). */
async function freshDb(seeded: string, file: string): Promise<string> {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  const source = new Database(seeded, { readonly: true });
  try {
    await source.backup(file);
  } finally {
    source.close();
  }
  return file;
}

async function flood(context: ScaleContext, server: Running, clients: number, idleMb: number): Promise<FloodOutcome> {
  const { scale, connections } = context.settings;
  const result = await load({ origin: server.url, method: 'GET', paths: context.floodPaths, connections, seconds: scale.floodSeconds, clients }, server);
  const peakMb = server.peakRssMb();
  await sleep(scale.settleSeconds * 1000);
  const settledMb = server.rssMb();
  const share = shareOf(result.statuses, 200);
  const invalid = share < 0.99 ? `only ${(share * 100).toFixed(1)} % of responses were 200: ${JSON.stringify(result.statuses)}` : undefined;
  return { clients, result, idleMb, peakMb, settledMb, ...(invalid ? { invalid } : {}) };
}

async function identityBytes(origin: string, path: string): Promise<number> {
  const response = await fetch(`${origin}${path}`, { headers: { 'accept-encoding': 'identity' } });
  const body = await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
  return body.byteLength;
}

async function measureSize(context: ScaleContext, articles: number, largest: boolean): Promise<{ size: SizeOutcome; oneClient?: FloodOutcome }> {
  const { scale } = context.settings;
  const copy = join(context.workDir, `scale-${articles}`);
  context.say(`scale: ${articles.toLocaleString('en')} articles: building a copy of the site`);
  const build = await buildSiteCopy(context.repo, copy, articles);
  const size: SizeOutcome = { articles, buildSeconds: build.seconds };
  if (build.error) return { size: { ...size, error: build.error } };
  context.say(`  built in ${build.seconds.toFixed(1)} s`);
  const db = join(context.workDir, `scale-${articles}.db`);
  const log = (name: string) => join(context.workDir, `server-scale-${articles}-${name}.log`);
  let server: Running | undefined;
  let oneClient: FloodOutcome | undefined;
  try {
    const startups: number[] = [];
    const idles: number[] = [];
    for (let n = 0; n < scale.starts; n++) {
      await server?.stop();
      const started = await startTimed(context, copy, build.dist, await freshDb(context.seededDb, db), log(`start${n}`));
      server = started.server;
      startups.push(started.ms);
      await sleep(scale.idleSeconds * 1000);
      idles.push(server.rssMb());
    }
    size.startupMs = median(startups);
    size.idleMb = median(idles);
    context.say(`  start-up ${startups.map((ms) => ms.toFixed(0)).join(', ')} ms; idle RSS ${idles.map((mb) => mb.toFixed(1)).join(', ')} MB`);

    context.say(`  flood: ${scale.clients.toLocaleString('en')} clients, ${context.settings.connections} connections, ${scale.floodSeconds} s, then ${scale.settleSeconds} s idle`);
    size.flood = await flood(context, server!, scale.clients, idles.at(-1)!);
    context.say(`  ${describeFlood(size.flood)}`);

    size.newsBytes = await identityBytes(server!.url, '/news/');
    size.rssBytes = await identityBytes(server!.url, '/rss.xml');
    const chat = await runChat(server!, { ...context.settings, rounds: 1, seconds: scale.chatSeconds });
    size.chatP50Ms = chat.result.p50;
    if (chat.invalid) size.chatInvalid = chat.invalid;
    context.say(`  /news/ ${size.newsBytes.toLocaleString('en')} B, /rss.xml ${size.rssBytes.toLocaleString('en')} B; chat TTFB p50 ${chat.result.p50.toFixed(1)} ms`);
    await server!.stop();
    server = undefined;

    if (largest) {
      context.say(`  the same flood from one client, on a fresh server`);
      const started = await startTimed(context, copy, build.dist, await freshDb(context.seededDb, db), log('one-client'));
      server = started.server;
      await sleep(scale.idleSeconds * 1000);
      oneClient = await flood(context, server, 1, server.rssMb());
      context.say(`  ${describeFlood(oneClient)}`);
    }
  } catch (error) {
    size.error = error instanceof Error ? error.message : String(error);
    context.say(`  failed: ${size.error}`);
  } finally {
    await server?.stop();
    // The copy's build and the logs (a line per request): gigabytes over the sizes.
    for (const path of [copy, db, `${db}-wal`, `${db}-shm`]) rmSync(path, { recursive: true, force: true });
    for (let n = 0; n < scale.starts; n++) rmSync(log(`start${n}`), { force: true });
    rmSync(log('one-client'), { force: true });
  }
  return { size, ...(oneClient ? { oneClient } : {}) };
}

export function describeFlood(f: FloodOutcome): string {
  const r = f.result;
  return (
    `${f.clients.toLocaleString('en')} client${f.clients === 1 ? '' : 's'}: ${Math.round(r.rps).toLocaleString('en')} req/s, p99 ${r.p99} ms, server CPU ${Math.round((r.serverCpu ?? 0) * 100)} % (${Math.round(r.cpuUsPerRequest ?? 0)} us/req), load gen CPU ${Math.round(r.loadGenCpu * 100)} %; ` +
    `RSS idle ${f.idleMb.toFixed(1)} MB, peak ${f.peakMb.toFixed(1)} MB, ${f.settledMb.toFixed(1)} MB after the flood${f.invalid ? ` (invalid: ${f.invalid})` : ''}`
  );
}

export async function runScale(context: ScaleContext): Promise<ScaleOutcome> {
  const started = performance.now();
  const sizes = [...context.settings.scale.sizes].sort((a, b) => a - b);
  const outcome: ScaleOutcome = { settings: context.settings.scale, connections: context.settings.connections, chatWorkers: context.settings.chatWorkers, ownArticles: context.ownArticles, commit: context.commit, sizes: [], seconds: 0 };
  for (const articles of sizes) {
    const { size, oneClient } = await measureSize(context, articles, articles === sizes.at(-1));
    outcome.sizes.push(size);
    if (oneClient) outcome.oneClient = oneClient;
  }
  outcome.seconds = (performance.now() - started) / 1000;
  return outcome;
}

export interface ScaleVerdict {
  target: string;
  figure: string;
  /** Undefined when the figures are missing (a size failed). */
  met?: boolean;
}

const mb = (n: number) => `${n.toFixed(1)} MB`;

/** Each target of SCALE_TARGET beside the figures it is judged on (at the largest size measured). */
export function scaleVerdicts(outcome: ScaleOutcome): ScaleVerdict[] {
  const sizes = outcome.sizes;
  const smallest = sizes[0];
  const largest = sizes.at(-1);
  const at = largest ? `${largest.articles.toLocaleString('en')} articles` : 'the largest size';
  const verdicts: ScaleVerdict[] = [];
  const peak = largest?.flood;
  verdicts.push({
    target: `peak RSS <= ${SCALE_TARGET.peakRssMb} MB under the flood of ${outcome.settings.clients.toLocaleString('en')} clients, ${at}`,
    figure: peak ? mb(peak.peakMb) : 'not measured',
    ...(peak && !peak.invalid ? { met: peak.peakMb <= SCALE_TARGET.peakRssMb } : {}),
  });
  const floods = [...sizes.flatMap((s) => (s.flood ? [{ label: `${s.articles.toLocaleString('en')} articles`, f: s.flood }] : [])), ...(outcome.oneClient ? [{ label: 'one client', f: outcome.oneClient }] : [])];
  verdicts.push({
    target: `RSS ${outcome.settings.settleSeconds} s after each flood within ${SCALE_TARGET.settledAboveIdleMb} MB of idle`,
    figure: floods.length > 0 ? floods.map(({ label, f }) => `${label}: ${signed(f.settledMb - f.idleMb)} MB`).join(', ') : 'not measured',
    // Judged once every size and the one-client flood have figures; an invalid flood fails it.
    ...(sizes.length > 0 && sizes.every((s) => s.flood) && outcome.oneClient ? { met: floods.every(({ f }) => !f.invalid && f.settledMb - f.idleMb <= SCALE_TARGET.settledAboveIdleMb) } : {}),
  });
  verdicts.push({
    target: `chat time to first byte p50 <= ${SCALE_TARGET.chatP50Ms} ms, ${at}`,
    figure: largest?.chatP50Ms === undefined ? 'not measured' : `${largest.chatP50Ms.toFixed(1)} ms${largest.chatInvalid ? ` (invalid: ${largest.chatInvalid})` : ''}`,
    ...(largest?.chatP50Ms !== undefined && !largest.chatInvalid ? { met: largest.chatP50Ms <= SCALE_TARGET.chatP50Ms } : {}),
  });
  for (const [name, value, unit] of [
    ['start-up time', (s: SizeOutcome) => s.startupMs, 'ms'],
    ['idle RSS', (s: SizeOutcome) => s.idleMb, 'MB'],
  ] as const) {
    const small = smallest ? value(smallest) : undefined;
    const large = largest ? value(largest) : undefined;
    const ratio = small !== undefined && large !== undefined && smallest !== largest ? large / small : undefined;
    verdicts.push({
      target: `${name} flat: ${at} / ${smallest?.articles.toLocaleString('en') ?? '?'} articles <= ${SCALE_TARGET.flatRatio} x`,
      figure: ratio === undefined ? 'not measured' : `${ratio.toFixed(2)} x (${large!.toFixed(unit === 'ms' ? 0 : 1)} / ${small!.toFixed(unit === 'ms' ? 0 : 1)} ${unit})`,
      ...(ratio === undefined ? {} : { met: ratio <= SCALE_TARGET.flatRatio }),
    });
  }
  return verdicts;
}

/** A one-client or many-client flood against the RSS targets (peak, and back near idle). */
export function floodMet(f: FloodOutcome): boolean {
  return !f.invalid && f.peakMb <= SCALE_TARGET.peakRssMb && f.settledMb - f.idleMb <= SCALE_TARGET.settledAboveIdleMb;
}

function signed(n: number): string {
  return `${n >= 0 ? '+' : '-'}${Math.abs(n).toFixed(1)}`;
}
