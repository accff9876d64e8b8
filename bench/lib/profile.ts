/**
 * Where a `node --cpu-prof` profile spends its time: self time per function and per package,
 * from the samples (each sample is attributed to the frame on top of the stack).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface CpuProfile {
  startTime: number;
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number } }>;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  totalMs: number;
  functions: Array<{ name: string; where: string; ms: number; share: number }>;
  packages: Array<{ name: string; ms: number; share: number }>;
}

/** `node_modules/<pkg>`, `src/...`, `node:internal`, or the V8 pseudo-frames such as (garbage collector). */
function packageOf(url: string, name: string): string {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (nm) return nm[1]!;
  if (url.startsWith('node:')) return 'node (built-in)';
  const own = /\/(src\/[^/]+|jobs|bench|dist\/server)\//.exec(url);
  return own ? own[1]! : url;
}

function shortUrl(url: string): string {
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  const own = /\/((?:src|jobs|bench|dist)\/.*)$/.exec(url);
  return own ? own[1]! : url.replace(/^file:\/\//, '');
}

/**
 * Summarise the samples taken within `window` (CLOCK_MONOTONIC microseconds, the clock of both
 * V8's profiler and `process.hrtime`), so start-up does not mix with the load being studied.
 */
export function summarise(file: string, window?: readonly [number, number], top = 15): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const fnTime = new Map<string, number>();
  const pkgTime = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id);
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (!frame || (window && (at < window[0] || at > window[1]))) return;
    total += us;
    const name = frame.functionName || '(anonymous)';
    const key = `${name}\t${frame.url ? `${shortUrl(frame.url)}:${frame.lineNumber + 1}` : ''}`;
    fnTime.set(key, (fnTime.get(key) ?? 0) + us);
    const pkg = packageOf(frame.url, name);
    pkgTime.set(pkg, (pkgTime.get(pkg) ?? 0) + us);
  });
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    file,
    totalMs: total / 1000,
    functions: sorted(fnTime).map(([key, us]) => {
      const [name, where] = key.split('\t') as [string, string];
      return { name, where, ms: us / 1000, share: us / total };
    }),
    packages: sorted(pkgTime).map(([name, us]) => ({ name, ms: us / 1000, share: us / total })),
  };
}

/** The newest .cpuprofile in a directory. */
export function profileIn(dir: string): string | undefined {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).sort();
  return files.length > 0 ? join(dir, files.at(-1)!) : undefined;
}

export function profileMarkdown(title: string, summary: ProfileSummary): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  return [
    `#### ${title}`,
    '',
    `Profile \`${summary.file}\`, ${summary.totalMs.toFixed(0)} ms sampled. Self time by function:`,
    '',
    '| self | share | function | where |',
    '|---:|---:|---|---|',
    ...summary.functions.map((f) => `| ${f.ms.toFixed(0)} ms | ${pct(f.share)} | \`${f.name}\` | ${f.where ? `\`${f.where}\`` : ''} |`),
    '',
    'Self time by package:',
    '',
    '| self | share | package |',
    '|---:|---:|---|',
    ...summary.packages.slice(0, 10).map((p) => `| ${p.ms.toFixed(0)} ms | ${pct(p.share)} | ${p.name} |`),
    '',
  ].join('\n');
}
