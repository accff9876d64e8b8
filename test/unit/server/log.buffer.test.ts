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

/**
 * Lines wait until LOG_WRITE_BYTES of them are there (or the flush interval passes): each
 * asynchronous write costs about 25 us of CPU whatever its size, 6 to 8 % of a 429 at 4 KiB
 * blocks (bench/NOTES.md, "Fixed cost per request"). The child writes just under one block,
 * reports, waits (its flush interval is a minute), then writes the rest of the block.
 */
const BLOCK_CHILD = `
import { createLogger, LOG_WRITE_BYTES } from './src/server/log.ts';
const log = createLogger({ level: 'info', buffered: true, flushIntervalMs: 60_000 });
const line = 'x'.repeat(900);
const lines = Math.floor(LOG_WRITE_BYTES / 1_000) - 4;
for (let i = 0; i < lines; i++) log.info({ i, line }, 'waits');
process.stderr.write(JSON.stringify({ block: LOG_WRITE_BYTES, lines }) + '\\n');
setTimeout(() => {
  process.stderr.write('more\\n');
  for (let i = 0; i < 8; i++) log.info({ i, line }, 'fills the block');
  setTimeout(() => process.exit(0), 5_000);
}, 500);
`;

describe('the production logger writes in blocks', () => {
  it('holds lines until a block of them is there, then writes it without waiting for the interval', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', BLOCK_CHILD], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let stdoutBeforeMore: string | undefined;
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stdoutBeforeMore === undefined && stderr.includes('more\n')) stdoutBeforeMore = stdout;
    });
    const code = await new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
    expect(code, stderr).toBe(0);
    const { block, lines } = JSON.parse(stderr.split('\n')[0]!) as { block: number; lines: number };
    // Just under a block (each line about 1,000 bytes): nothing written in the half second after.
    expect(block).toBeGreaterThanOrEqual(64 * 1024);
    expect(lines * 1_000).toBeLessThan(block);
    expect(stdoutBeforeMore).toBe('');
    // Past a block: written, the interval (a minute) not awaited.
    expect(stdout.split('\n').filter((l) => l.includes('"msg":"waits"'))).toHaveLength(lines);
  });
});

/**
 * Lines are encoded into a block as they come and handed over a block at a time (src/server/log.ts
 * `encodeInBlocks`): a character of several UTF-8 bytes is never cut at a block's edge, every line
 * arrives whole and in order, and one longer than a block is written as it is.
 */
const UTF8_CHILD = `
import { createLogger } from './src/server/log.ts';
const log = createLogger({ level: 'info', buffered: true, flushIntervalMs: 60_000 });
for (let i = 0; i < 3_000; i++) log.info({ i, text: 'é€😀'.repeat(1 + (i % 37)) }, 'utf8');
log.info({ i: 3_000, text: 'ü'.repeat(100_000) }, 'utf8');
for (let i = 3_001; i < 3_100; i++) log.info({ i, text: 'é€😀'.repeat(1 + (i % 37)) }, 'utf8');
log.flush();
`;

describe('the production logger encodes lines into blocks', () => {
  it('writes every line whole and in order, multi-byte characters across block edges included', { timeout: 60_000 }, async () => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', UTF8_CHILD], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolveExit) => child.once('exit', resolveExit));
    expect(code, stderr).toBe(0);
    const lines = Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean);
    const records = lines.map((l) => JSON.parse(l) as { i?: number; text?: string; msg: string }).filter((r) => r.msg === 'utf8');
    expect(records.map((r) => r.i)).toEqual(Array.from({ length: 3_100 }, (_, i) => i));
    for (const r of records) expect(r.text).toBe(r.i === 3_000 ? 'ü'.repeat(100_000) : 'é€😀'.repeat(1 + (r.i! % 37)));
    expect(Buffer.concat(chunks).includes('\ufffd')).toBe(false);
  });
});
