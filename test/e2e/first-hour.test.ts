/**
 * The README's commands, as a newcomer copies them: every command
 * of its ```sh blocks and of "Operations" runs as written on a fresh clone of HEAD, and each
 * documented result is checked by scripts/first-hour.ts (`npm run first-hour` runs it alone).
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe("the README's commands", () => {
  it('all behave as the README says on a fresh clone', { timeout: 600_000 }, () => {
    const run = spawnSync(process.execPath, ['scripts/first-hour.ts'], { encoding: 'utf8', timeout: 590_000 });
    const lines = run.stdout.split('\n').filter((line) => /^(ok|FAIL|\?\?)\s/.test(line));
    // Every README command was judged, and none failed or lacks an expectation.
    expect(lines.length).toBeGreaterThanOrEqual(12);
    expect(lines.filter((line) => !line.startsWith('ok')), run.stdout + run.stderr).toEqual([]);
    expect(run.status, run.stdout + run.stderr).toBe(0);
  });
});
