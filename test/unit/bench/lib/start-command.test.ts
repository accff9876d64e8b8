/**
 * The demo serves with the memory settings of `npm start` (issue 35): the first command a new
 * user runs is the process they measure, and without `--max-semi-space-size=4` and
 * MALLOC_ARENA_MAX a flood of contact submissions grew it by about three times as much; the
 * allocator's fixed thresholds keep a flood's peak near 150 MB (bench/NOTES.md, "Memory round 7").
 */
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startCommand } from '../../../../bench/lib/start-command.ts';

const ROOT = resolve(import.meta.dirname, '../../../..');

describe('the server command of an npm script', () => {
  it('reads npm start as environment, node flags and entry', () => {
    const start = startCommand(ROOT);
    expect(start.env).toEqual({ MALLOC_ARENA_MAX: '1', MALLOC_MMAP_THRESHOLD_: '65536', MALLOC_TRIM_THRESHOLD_: '65536' });
    expect(start.args).toContain('--max-semi-space-size=4');
    expect(start.memoryFlags).toEqual(['--max-semi-space-size=4']);
    expect(start.args.at(-1)).toBe('bin/start.mjs');
  });

  it('finds the demo serving exactly as npm start does, after its build and seed', () => {
    expect(startCommand(ROOT, 'demo')).toEqual(startCommand(ROOT));
  });

  it('refuses a script that does not end with a node command', () => {
    expect(() => startCommand(ROOT, 'build')).toThrow(/"build" does not end with/);
  });
});
