/**
 * Idle compaction (src/server/idle-compaction.ts): once the loop is idle and the resident set has
 * grown past its bound, V8's last-resort collection runs and the memory goes back; not while the
 * loop is busy, and not again without new growth. Run in a child process: its resident set is its
 * own, not a test worker's.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCommand } from '../../../bench/lib/start-command.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

/** The child, with the growth bound of IDLE_COMPACTION_MB (0 turns compaction off). */
const child = (growthMib: number) => `
import { Writable } from 'node:stream';
import { createLogger } from './src/server/log.ts';
import { startIdleCompaction } from './src/server/idle-compaction.ts';
const lines = [];
const stream = new Writable({ write(chunk, _e, done) { lines.push(JSON.parse(chunk.toString())); done(); } });
const log = createLogger({ level: 'info', stream });
const mib = () => process.memoryUsage.rss() / 1048576;
const stop = startIdleCompaction(log, { intervalMs: 200, growthBytes: ${growthMib} * 1048576, minGapMs: 0 });
const idle = mib();
// A flood's garbage: objects that live long enough to be promoted, then dropped. The loop is busy
// meanwhile (no compaction while it is).
let held = [];
const busyUntil = Date.now() + 2_000;
while (Date.now() < busyUntil) {
  for (let i = 0; i < 10_000; i++) held.push({ a: i, b: 'x' + i, c: [i] });
  if (held.length >= 600_000) held = [];
}
held = undefined;
const grown = mib();
const compactedWhileBusy = lines.length;
await new Promise((r) => setTimeout(r, 2_000));
const after = mib();
const firstCount = lines.length;
await new Promise((r) => setTimeout(r, 1_000));
stop();
process.stdout.write(JSON.stringify({ idle, grown, after, compactedWhileBusy, firstCount, lines }) + '\\n');
`;

interface Outcome {
  idle: number;
  grown: number;
  after: number;
  compactedWhileBusy: number;
  firstCount: number;
  lines: { msg: string; rssMb: number; afterMb: number }[];
}

/** As npm start runs it: its young generation and the allocator's settings (package.json). Rejects on a non-zero exit. */
async function flood(growthMib: number): Promise<Outcome> {
  const start = startCommand(ROOT);
  const { stdout } = await promisify(execFile)(process.execPath, [...start.memoryFlags, '--input-type=module', '-e', child(growthMib)], { cwd: ROOT, env: { ...process.env, ...start.env } });
  return JSON.parse(stdout.trim()) as Outcome;
}

describe('idle compaction', () => {
  it('gives memory back once the loop is idle, once per growth', { timeout: 60_000 }, async () => {
    const out = await flood(16);
    // The garbage made the process grow past the bound, and nothing ran while the loop was busy.
    expect(out.grown - out.idle, JSON.stringify(out)).toBeGreaterThan(16);
    expect(out.compactedWhileBusy).toBe(0);
    // Once idle: one compaction, and the resident set came back down.
    expect(out.firstCount, JSON.stringify(out)).toBe(1);
    expect(out.lines[0]?.msg).toBe('idle: heap compacted, memory given back');
    expect(out.after, JSON.stringify(out)).toBeLessThan(out.grown - 8);
    expect(out.lines[0]!.afterMb).toBeLessThan(out.lines[0]!.rssMb);
    // No new growth, no second one (minGapMs is 0 here).
    expect(out.lines).toHaveLength(1);
  });

  it('runs none when IDLE_COMPACTION_MB is 0', { timeout: 60_000 }, async () => {
    const out = await flood(0);
    expect(out.grown - out.idle, JSON.stringify(out)).toBeGreaterThan(16);
    expect(out.lines).toEqual([]);
  });
});
