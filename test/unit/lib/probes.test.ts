import { describe, expect, it } from 'vitest';
import { recentCheck } from '../../../src/lib/probes.ts';

/** A check that counts its runs and ends when told. */
function controlled() {
  const runs: Array<{ resolve: () => void; reject: (error: Error) => void }> = [];
  const check = () => new Promise<void>((resolve, reject) => void runs.push({ resolve, reject }));
  return { runs, check };
}


const settled = (promise: Promise<void>) => promise.then(() => 'ready', (error: Error) => `failed: ${error.message}`);
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A recent check on a clock the test moves, its first run already started. */
async function startedOnAClock() {
  const clock = { now: 0 };
  const { runs, check } = controlled();
  const ready = recentCheck(check, 1_000, () => clock.now);
  const first = settled(ready());
  await turn();
  return { clock, runs, ready, first };
}

describe('readiness from a recent result', () => {
  it('runs one check at a time however many probes arrive while it runs', async () => {
    const { runs, check } = controlled();
    const ready = recentCheck(check, 1_000, () => 0);
    const answers = Array.from({ length: 500 }, () => settled(ready()));
    await turn();
    expect(runs).toHaveLength(1);
    runs[0]!.resolve();
    expect(new Set(await Promise.all(answers))).toEqual(new Set(['ready']));
  });

  it('answers from the last result for a second, then checks again', async () => {
    const { clock, runs, ready, first } = await startedOnAClock();
    runs[0]!.resolve();
    expect(await first).toBe('ready');
    clock.now = 999;
    expect(await settled(ready())).toBe('ready');
    expect(runs).toHaveLength(1);
    clock.now = 1_000;
    const second = settled(ready());
    await turn();
    expect(runs).toHaveLength(2);
    runs[1]!.reject(new Error('database gone'));
    expect(await second).toBe('failed: database gone');
    // A failure is remembered the same way, and replaced by the next check's result.
    clock.now = 1_500;
    expect(await settled(ready())).toBe('failed: database gone');
    clock.now = 2_000;
    const third = settled(ready());
    await turn();
    runs[2]!.resolve();
    expect(await third).toBe('ready');
    expect(runs).toHaveLength(3);
  });

  it('counts the age from when the result came in, not from when the check started', async () => {
    const { clock, runs, ready, first } = await startedOnAClock();
    clock.now = 5_000; // a slow check
    runs[0]!.resolve();
    await first;
    clock.now = 5_900;
    await settled(ready());
    expect(runs).toHaveLength(1);
  });
});
