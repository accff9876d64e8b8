/** bench/RESULTS.md: the tables, the machine, the method, and profiles of targets not met. */
import type { BuildOutcome } from '../scenarios/astro-build.ts';
import { BUILD_TARGET_SECONDS } from '../scenarios/astro-build.ts';
import { CHAT_TARGET, type ChatOutcome } from '../scenarios/chat.ts';
import { writeLockRow, type WriteLockOutcome } from '../scenarios/write-lock.ts';
import { describeTarget, type HttpOutcome } from '../scenarios/http.ts';
import { REMATERIALIZE_TARGET_MS, type DayOutcome, type MaterializeOutcome } from '../scenarios/materialize.ts';
import { searchSection, type SearchOutcome } from '../scenarios/search.ts';
import { floodMet, scaleVerdicts, SCALE_TARGET, type FloodOutcome, type ScaleOutcome } from '../scenarios/scale.ts';
import { JUNK_FLOOD_TARGET, type JunkFloodOutcome } from '../scenarios/junk-flood.ts';
import { CONTACT_FLOOD_TARGET, type ContactFloodOutcome } from '../scenarios/contact-flood.ts';
import type { LoadResult } from './load.ts';
import type { Settings } from './settings.ts';
import type { Machine } from './system.ts';

export const RSS_TARGET_MB = 150;

export interface Results {
  settings: Settings;
  machine: Machine;
  started: Date;
  finished?: Date;
  loadAfter?: number[];
  /** HEAD when the run ended: the code under test changed during the run if it differs. */
  commitAfter?: string;
  http: HttpOutcome[];
  chat?: ChatOutcome;
  /** /healthz, a read and contacts while another process holds the SQLite write lock. */
  writeLock?: WriteLockOutcome;
  /** Peak RSS (VmHWM) of each server instance after its scenarios. */
  rss: Array<{ name: string; mb: number }>;
  materialize?: MaterializeOutcome;
  day?: DayOutcome;
  build?: BuildOutcome;
  scale?: ScaleOutcome;
  /** Long and missing paths from one client at the default limits (scenarios/junk-flood.ts). */
  junkFlood?: JunkFloodOutcome;
  /** Valid contact submissions from distinct clients (scenarios/contact-flood.ts). */
  contactFlood?: ContactFloodOutcome;
  search?: SearchOutcome;
  /** Markdown sections, one per target not met. */
  profiles: string[];
}

const int = (n: number) => Math.round(n).toLocaleString('en');
const ms = (n: number) => (n < 10 ? n.toFixed(1) : n.toFixed(0));
const verdict = (met: boolean | undefined) => (met === undefined ? 'pending' : met ? 'yes' : '**no**');

/** Baseline CPU per request over ours: the req/s ratio to expect were both alone on their core. */
function costRatio(ours: LoadResult, baseline: LoadResult | undefined): string {
  if (ours.cpuUsPerRequest === undefined || baseline?.cpuUsPerRequest === undefined) return '-';
  return `${(baseline.cpuUsPerRequest / ours.cpuUsPerRequest).toFixed(2)} x`;
}

function httpTable(outcomes: readonly HttpOutcome[]): string[] {
  if (outcomes.length === 0) return [];
  const rows = outcomes.map((o) => {
    const b = o.baseline;
    const baseline = o.scenario.baseline === 'query' ? 'query baseline' : o.scenario.baseline === 'metrics-off' ? 'metrics off (fresh, as main)' : o.scenario.baseline ?? '-';
    const cpu = (r: LoadResult | undefined) => (r?.serverCpu === undefined ? '-' : `${Math.round(r.serverCpu * 100)} %`);
    const us = (r: LoadResult | undefined) => (r?.cpuUsPerRequest === undefined ? '-' : int(r.cpuUsPerRequest));
    const note = o.invalid ? ` (invalid: ${o.invalid})` : o.noisy ? ` (${o.noisy}; see the CPU-cost ratio)` : '';
    return (
      `| ${o.scenario.name} | ${int(o.ours.rps)} | ${o.ours.p50} | ${o.ours.p99} | ${cpu(o.ours)} | ${us(o.ours)} | ${Math.round(o.ours.loadGenCpu * 100)} % | ${baseline} | ${b ? int(b.rps) : '-'} | ${b ? b.p99 : '-'} | ` +
      `${cpu(b)} | ${us(b)} | ${o.ratio === undefined ? '-' : `${o.ratio.toFixed(2)} x`} | ${costRatio(o.ours, b)} | ${describeTarget(o.scenario.target, baseline)} | ${o.noisy ? 'unclear' : verdict(o.met)}${note} |`
    );
  });
  return [
    '| scenario | req/s | p50 ms | p99 ms | server CPU | CPU us/req | load gen CPU | baseline | baseline req/s | baseline p99 ms | baseline CPU | baseline CPU us/req | ratio | CPU-cost ratio | target | met |',
    '|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows,
  ];
}

/** The scenarios run against the Fastify peer too: ours over the peer beside ours over the ceiling. */
function peerTable(outcomes: readonly HttpOutcome[]): string[] {
  const rows = outcomes
    .filter((o) => o.peer !== undefined)
    .map((o) => {
      const p = o.peer!;
      const us = (r: LoadResult | undefined) => (r?.cpuUsPerRequest === undefined ? '-' : int(r.cpuUsPerRequest));
      const x = (n: number | undefined) => (n === undefined ? '-' : `${n.toFixed(2)} x`);
      const target = o.scenario.target.peerRatio === undefined ? '-' : `>= ${o.scenario.target.peerRatio} x peer`;
      const met = o.scenario.target.peerRatio === undefined ? '-' : o.noisy ? 'unclear' : verdict((o.peerRatio ?? 0) >= o.scenario.target.peerRatio);
      return (
        `| ${o.scenario.name} | ${int(o.ours.rps)} | ${us(o.ours)} | ${int(p.rps)} | ${p.p99} | ${us(p)} | ${x(o.peerRatio)} | ${costRatio(o.ours, p)} | ` +
        `${x(o.ratio)} | ${costRatio(o.ours, o.baseline)} | ${target} | ${met} |`
      );
    });
  if (rows.length === 0) return [];
  return [
    'Against the peer (bench/peers/fastify.ts: Fastify with @fastify/rate-limit and its default logger to a file, answering the same bytes and headers), run in the same rounds:',
    '',
    '| scenario | ours req/s | ours CPU us/req | peer req/s | peer p99 ms | peer CPU us/req | ours / peer | CPU-cost ratio vs peer | ours / ceiling | CPU-cost ratio vs ceiling | target vs peer | met |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|',
    ...rows,
    '',
  ];
}

function otherTable(r: Results): string[] {
  const rows: string[] = [];
  if (r.chat) {
    const c = r.chat.result;
    rows.push(
      `| POST /api/chat, built-in assistant, time to first byte at ${r.settings.chatWorkers} clients | p50 ${ms(c.p50)} ms, p99 ${ms(c.p99)} ms, max ${ms(c.max)} ms (${int(c.requests)} replies) | - | - | p50 <= ${CHAT_TARGET.p50Ms} ms, p99 <= ${CHAT_TARGET.p99Ms} ms | ${verdict(r.chat.met)}${r.chat.invalid ? ` (invalid: ${r.chat.invalid})` : ''} |`,
    );
  }
  if (r.writeLock) rows.push(writeLockRow(r.writeLock));
  if (r.rss.length > 0) {
    const peak = Math.max(...r.rss.map((x) => x.mb));
    const detail = r.rss.map((x) => `${x.name} ${ms(x.mb)} MB`).join(', ');
    rows.push(`| server peak RSS (VmHWM) under the scenarios above | ${ms(peak)} MB (${detail}) | - | - | <= ${RSS_TARGET_MB} MB | ${verdict(peak <= RSS_TARGET_MB)} |`);
  }
  if (r.junkFlood) {
    const j = r.junkFlood;
    const statuses = Object.entries(j.result.statuses).map(([status, n]) => `${n.toLocaleString('en')} x ${status}`).join(', ');
    rows.push(
      `| flood of 8,000-character missing paths (\`/_astro/\`, pages, backslash spellings) from one client, ${r.settings.connections} connections, ${r.settings.scale.floodSeconds} s, default limits | ` +
        `RSS idle ${ms(j.idleMb)} MB, peak ${ms(j.peakMb)} MB, ${ms(j.settledMb)} MB ${r.settings.scale.settleSeconds} s after; ${int(j.result.rps)} req/s (${statuses}); ${ms(j.logBytes / 1e6)} MB of log | - | - | ` +
        `peak <= ${JUNK_FLOOD_TARGET.peakRssMb} MB, within ${JUNK_FLOOD_TARGET.settledAboveIdleMb} MB of idle after, 429s | ${verdict(j.met)}${j.invalid ? ` (invalid: ${j.invalid})` : ''} |`,
    );
  }
  if (r.contactFlood) {
    const c = r.contactFlood;
    const statuses = Object.entries(c.result.statuses).map(([status, n]) => `${n.toLocaleString('en')} x ${status}`).join(', ');
    rows.push(
      `| flood of valid contact submissions from ${int(c.clients)} distinct clients (X-Forwarded-For), ${r.settings.connections} connections, ${r.settings.scale.floodSeconds} s | ` +
        `RSS idle ${ms(c.idleMb)} MB, peak ${ms(c.peakMb)} MB, ${ms(c.settledMb)} MB ${r.settings.scale.settleSeconds} s after; ${int(c.result.rps)} req/s (${statuses}) | - | - | ` +
        `peak <= ${CONTACT_FLOOD_TARGET.peakRssMb} MB, within ${CONTACT_FLOOD_TARGET.settledAboveIdleMb} MB of idle after | ${verdict(c.met)}${c.invalid ? ` (invalid: ${c.invalid})` : ''} |`,
    );
  }
  if (r.materialize) {
    const m = r.materialize;
    rows.push(
      m.skipped
        ? `| materialize ${int(m.events)} events over ${r.settings.days} days | skipped: ${m.skipped} | sqlite3 CLI | - | <= 1.0 x sqlite3 CLI | pending |`
        : `| materialize ${int(m.events)} events over ${r.settings.days} days | ${ms(m.nodeMs! / 1000)} s | sqlite3 CLI ${m.cliVersion ?? ''}: ${ms(m.cliMs! / 1000)} s | ${m.ratio!.toFixed(2)} x | <= 1.0 x sqlite3 CLI | ${verdict(m.met)} |`,
    );
  }
  if (r.day) {
    const d = r.day;
    const sorted = [...d.ms].sort((a, b) => a - b);
    rows.push(
      `| re-materialize one day of ${int(d.events)} events | max ${ms(Math.max(...d.ms))} ms, median ${ms(sorted[Math.floor(sorted.length / 2)]!)} ms (calls: ${d.ms.map(ms).join(', ')}) | - | - | <= ${REMATERIALIZE_TARGET_MS} ms | ${verdict(d.met)} |`,
    );
  }
  if (r.build) {
    const b = r.build;
    rows.push(`| astro build with ${int(b.articles)} extra news articles (cold cache) | ${b.seconds.toFixed(1)} s${b.error ? ` (failed: ${b.error.split('\n')[0]})` : ''} | - | - | <= ${BUILD_TARGET_SECONDS} s | ${verdict(b.met)} |`);
  }
  if (rows.length === 0) return [];
  return ['| measurement | result | baseline | ratio | target | met |', '|---|---|---|---:|---|---|', ...rows, ''];
}

/**
 * The scale scenario: one row per size, the one-client flood beside the many-client one, and the
 * targets with their verdicts. It names its own commit and duration, so it reads on its own.
 */
export function scaleSection(s: ScaleOutcome): string[] {
  const o = s.settings;
  const bytes = (n: number | undefined) => (n === undefined ? '-' : int(n));
  const fixed = (n: number | undefined, digits = 1) => (n === undefined ? '-' : n.toFixed(digits));
  const cpuOf = (r: LoadResult) => (r.serverCpu === undefined ? '-' : `${Math.round(r.serverCpu * 100)} %`);
  const usOf = (r: LoadResult) => (r.cpuUsPerRequest === undefined ? '-' : int(r.cpuUsPerRequest));
  const sizeRows = s.sizes.map((z) => {
    const f = z.flood;
    return (
      `| ${int(z.articles)} | ${z.buildSeconds.toFixed(1)} | ${fixed(z.startupMs, 0)} | ${fixed(z.idleMb)} | ${f ? int(f.result.rps) : '-'} | ${f ? f.result.p99 : '-'} | ${f ? cpuOf(f.result) : '-'} | ${f ? usOf(f.result) : '-'} | ${f ? `${Math.round(f.result.loadGenCpu * 100)} %` : '-'} | ` +
      `${f ? fixed(f.peakMb) : '-'} | ${f ? `${fixed(f.settledMb)} (${f.settledMb >= f.idleMb ? '+' : ''}${(f.settledMb - f.idleMb).toFixed(1)})` : '-'} | ${bytes(z.newsBytes)} | ${bytes(z.rssBytes)} | ` +
      `${z.chatP50Ms === undefined ? '-' : ms(z.chatP50Ms)} |`
    );
  });
  const problems = s.sizes.flatMap((z) => [
    ...(z.error ? [`- ${int(z.articles)} articles failed: ${z.error.split('\n')[0]}`] : []),
    ...(z.flood?.invalid ? [`- ${int(z.articles)} articles: the flood is invalid: ${z.flood.invalid}`] : []),
    ...(z.chatInvalid ? [`- ${int(z.articles)} articles: the chat run is invalid: ${z.chatInvalid}`] : []),
  ]);
  const largest = s.sizes.at(-1);
  const clientRow = (f: FloodOutcome) =>
    `| ${int(f.clients)} | ${int(f.result.rps)} | ${f.result.p99} | ${cpuOf(f.result)} | ${usOf(f.result)} | ${Math.round(f.result.loadGenCpu * 100)} % | ${fixed(f.idleMb)} | ${fixed(f.peakMb)} | ${fixed(f.settledMb)} | ${verdict(floodMet(f))}${f.invalid ? ` (invalid: ${f.invalid})` : ''} |`;
  const clientRows = [...(s.oneClient ? [clientRow(s.oneClient)] : []), ...(largest?.flood ? [clientRow(largest.flood)] : [])];
  return [
    '## Scale',
    '',
    `Commit ${s.commit}; took ${Math.round(s.seconds)} s. Each size is a copy of the repository with that many generated news articles beside the site's own ${s.ownArticles}, ` +
      `built once (cold cache, wall time), served by \`npm start\`'s command line run in the copy (DIST_DIR = its build) on a fresh copy of the seeded database, ` +
      `TRUST_PROXY=127.0.0.1 and the rate limits raised out of the way (the limiter still keeps a record per client). Start-up: spawn to the first 200 from /healthz, ` +
      `median of ${o.starts} start${o.starts === 1 ? '' : 's'}; idle RSS: VmRSS ${o.idleSeconds} s later (median). Flood: autocannon, ${s.connections} connections for ${o.floodSeconds} s, ` +
      `the data API (every 31-day range in turn), /api/news, / and /sellers.json a quarter each, each request with an X-Forwarded-For of one of ` +
      `${int(o.clients)} distinct clients in turn (a client comes round again only after all the others); peak RSS = VmHWM after the flood; ` +
      `then VmRSS after ${o.settleSeconds} s without requests (in brackets: above idle). Server CPU and CPU us/req as in the tables above: ` +
      `req/s depends on what else the machine runs, CPU us/req far less. /news/ and /rss.xml: body bytes with Accept-Encoding: identity. ` +
      `Chat: time to first byte at ${s.chatWorkers} clients over ${o.chatSeconds} s after the flood.`,
    '',
    `| articles | build s | start-up ms | idle RSS MB | flood req/s | flood p99 ms | server CPU | CPU us/req | load gen CPU | peak RSS MB | RSS ${o.settleSeconds} s after MB | /news/ bytes | /rss.xml bytes | chat TTFB p50 ms |`,
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...sizeRows,
    '',
    ...(problems.length > 0 ? [...problems, ''] : []),
    ...(clientRows.length > 0
      ? [
          `One client against ${int(o.clients)} distinct ones: the same flood at ${largest ? int(largest.articles) : '?'} articles, each on a fresh server (targets: peak RSS <= ${SCALE_TARGET.peakRssMb} MB, ` +
            `back within ${SCALE_TARGET.settledAboveIdleMb} MB of idle ${o.settleSeconds} s after):`,
          '',
          `| clients | req/s | p99 ms | server CPU | CPU us/req | load gen CPU | idle RSS MB | peak RSS MB | RSS ${o.settleSeconds} s after MB | met |`,
          '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
          ...clientRows,
          '',
        ]
      : []),
    '| target | figure | met |',
    '|---|---|---|',
    ...scaleVerdicts(s).map((v) => `| ${v.target} | ${v.figure} | ${verdict(v.met)} |`),
    '',
  ];
}

export function renderResults(r: Results, notes?: string): string {
  const m = r.machine;
  const s = r.settings;
  const load = (l: readonly number[] | undefined) => (l ? l.map((x) => x.toFixed(2)).join(' / ') : '?');
  const unmet = r.http.filter((o) => !o.met).length + (r.chat && !r.chat.met ? 1 : 0) + (r.writeLock && !r.writeLock.met ? 1 : 0);
  return [
    '# Benchmark results',
    '',
    `Written by \`${s.quick ? 'npx node bench/run.ts --quick' : 'npm run bench'}\` on ${r.started.toISOString()}` +
      `${r.finished ? ` (took ${Math.round((r.finished.getTime() - r.started.getTime()) / 1000)} s)` : ''}. ` +
      (s.quick ? 'QUICK MODE: one short round each, fewer events; figures are indicative only. ' : '') +
      'Do not edit by hand: run the benchmark again (bench/NOTES.md holds the hand-written analysis appended below).',
    '',
    '## Machine',
    '',
    '| | |',
    '|---|---|',
    `| CPU | ${m.cpu}, ${m.cores} cores |`,
    `| memory | ${m.memoryGb.toFixed(1)} GiB |`,
    `| Node | ${m.node} |`,
    `| packages | ${Object.entries(m.packages).map(([name, v]) => `${name} ${v}`).join(', ')} |`,
    `| SQLite | ${m.sqlite} (better-sqlite3), ${m.sqliteCli} (sqlite3 CLI) |`,
    `| commit | ${m.commit}${r.commitAfter && r.commitAfter !== m.commit ? `; at the end ${r.commitAfter} (the code changed during the run: servers started later ran newer code)` : ''} |`,
    `| load average (1/5/15 min) | before ${load(m.loadBefore)}, after ${load(r.loadAfter)} |`,
    '',
    '## Results',
    '',
    `Medians of ${s.rounds} round${s.rounds === 1 ? '' : 's'} of ${s.seconds} s per side at ${s.connections} connections, after ${s.warmupSeconds} s of unmeasured warm-up; ` +
      'ratio = our req/s / the baseline\'s. Latencies are autocannon\'s (whole milliseconds). Server CPU is the share of its core the server used during the run ' +
      '(near 100 % means the server, not the load generator, was the bottleneck); CPU us/req is the server\'s CPU time per response, which depends far less ' +
      'than req/s on what else the machine was doing; load gen CPU is the load generator\'s share of its own core during our runs. ' +
      'CPU-cost ratio = baseline CPU us/req / ours: the req/s ratio to expect if each had its core to itself; when other processes share the machine ' +
      '(see the load average above) it is the steadier of the two ratios. Targets are judged on the req/s ratio, as the scenarios define them.',
    '',
    ...httpTable(r.http),
    '',
    ...peerTable(r.http),
    ...otherTable(r),
    ...(r.scale ? scaleSection(r.scale) : []),
    ...(r.search ? searchSection(r.search) : []),
    '## Method',
    '',
    '- The server under test runs `node src/app/main.ts` with NODE_ENV=production, LOG_LEVEL=info (logging is part of what is measured, to a file), ' +
      'JOBS_ENABLED=false, DIST_DIR = a build made for the run (`astro build` into its temporary folder) and DATABASE_URL = a SQLite file seeded by ' +
      '`jobs/cli/seed.ts` (400 days, about 1.1 million events, materialized). Every RATE_LIMIT_* is 1,000,000,000 except in the 429 rows, whose ' +
      'instance has RATE_LIMIT_SITE_MINUTE, RATE_LIMIT_DATA_MINUTE and RATE_LIMIT_DATA_DAY at 1: the limiter runs on every request, it just never refuses.',
    '- Servers and baselines are pinned to core 0 (`taskset -c 0`), the load generator (autocannon, in the benchmark process, and the chat loop) to core 1.',
    '- **ceiling**: a node:http server answering every request with the exact bytes, status and Content-Type our server sent for that URL (captured ' +
      'once before the rounds; identity encoding on both sides, as autocannon sends no Accept-Encoding). **query baseline**: node:http running the ' +
      'SQL kysely sends for the data endpoint (captured from a real `readDailyStats` call) as a better-sqlite3 prepared statement on the same file, ' +
      'mapping rows to records and `JSON.stringify`. **Fastify peer**: Fastify 5 with @fastify/rate-limit (in-memory store, the ' +
      'limit of the instance it stands beside) and its default pino logger to a file, answering the captured bytes with the same ' +
      'representation, security and CORS headers plus its own X-Request-Id and rate-limit headers; the same core and rounds.',
    '- Cache miss: a separate instance with RESPONSE_CACHE_MAX_BYTES=1, so no response fits the cache, driven with every 31-day range of the seeded ' +
      'period in turn (the query baseline gets the same URLs). Cache hit: one settled 31-day range, repeated.',
    '- Contact: valid JSON submissions, each stored (SQLite WAL, synchronous=NORMAL) before the 200; no baseline, the target is absolute.',
    `- Chat: ${s.chatWorkers} concurrent fetch clients, Origin = the server's origin, each timing until the first body chunk and reading the whole ` +
      'streamed reply before its next request.',
    '- Peak RSS: /proc/<pid>/status VmHWM of each server instance after all of its scenarios ran.',
    `- Materialization: ${s.events.toLocaleString('en')} events (1 in 20 a transaction) evenly over ${s.days} days, written by SQLite itself ` +
      '(recursive CTE); `materialize()` (src/features/stats/materialize.server.ts, timed inside its process) against `sqlite3 <file>` running the same statements ' +
      '(`materializeStatement`, batch by batch, each in a transaction, after the pragmas createDb sets), both on core 0, alternately; the rollup is ' +
      'checked after each run. The re-materialized day is topped up to 30,000 events; the time is the worst of 5 calls on an open connection.',
    '- Build: a copy of the repository (tracked and untracked files, node_modules symlinked) with the extra articles, cold Astro cache, wall time.',
    '',
    ...(r.profiles.length > 0
      ? ['## Targets not met: where the time goes', '', 'Profiles of a fresh server under the same load (`node --cpu-prof`), self time.', '', ...r.profiles]
      : unmet > 0
        ? ['## Targets not met', '', 'Not profiled in this run (quick mode): `npm run bench`, or add `--profile`, captures a CPU profile for each.', '']
        : []),
    // NOTES.md's own title dropped and its sections nested one level under this one.
    ...(notes ? ['## Analysis (bench/NOTES.md)', '', notes.replace(/^# .*\n+/, '').replace(/^(#{2,}) /gm, '#$1 ')] : []),
  ].join('\n');
}
