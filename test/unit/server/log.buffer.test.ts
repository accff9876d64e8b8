/**
 * The production logger's buffer is bounded (issue 35): with asynchronous writes, lines wait for
 * stdout in sonic-boom's buffer, which had no limit, so a stdout slower than a flood (a terminal,
 * a stalled pipe) kept every line in memory. A child process writes 40 MB of lines in one turn of
 * its event loop (stdout cannot drain meanwhile) and reports how much of them its heap held.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');

const CHILD = `
import { createLogger, LOG_BUFFER_MAX_BYTES } from './src/server/log.ts';
const log = createLogger({ level: 'info', buffered: true });
globalThis.gc?.();
// The lines wait as strings or, in sonic-boom's buffer mode, as Buffers outside the heap.
const held = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
const before = held();
const line = 'x'.repeat(400);
for (let i = 0; i < 100_000; i++) log.info({ i, line }, 'flood');
const grown = held() - before;
process.stderr.write(JSON.stringify({ grown, bound: LOG_BUFFER_MAX_BYTES }) + '\\n');
// The drop warning is written a second after the first drop (its timer does not hold the
// process): live that long, as a server does, whatever the loop took.
setTimeout(() => {}, 1_500);
`;

describe('the production logger under a flood', () => {
  it('keeps at most its bound of lines waiting for stdout, drops the rest and says how many', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--expose-gc', '--input-type=module', '-e', CHILD], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
    expect(code, stderr).toBe(0);
    const { grown, bound } = JSON.parse(stderr.trim().split('\n').at(-1)!) as { grown: number; bound: number };
    // 100,000 lines of about 470 bytes: 47 MB unbounded. The bound, plus the loop's own garbage.
    expect(grown).toBeLessThan(bound + 12 * 1024 * 1024);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines.length).toBeLessThan(100_000);
    expect(lines.length).toBeGreaterThan(1_000);
    // The drops are reported, once, with their number.
    const warning = lines.map((l) => JSON.parse(l) as { msg: string; droppedLines?: number }).find((l) => l.msg === 'log lines dropped: stdout did not keep up');
    expect(warning?.droppedLines).toBe(100_000 - (lines.length - 1));
  });
});
