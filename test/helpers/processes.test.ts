/**
 * The promise test/helpers/processes.ts makes for the servers a run starts (PostgreSQL, Redis,
 * nginx): they do not outlive the process that started them, however it ends.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Poll until `pid` is gone (true) or `timeoutMs` passed (false). */
async function goneWithin(pid: number, timeoutMs: number): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (!isAlive(pid)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return !isAlive(pid);
}

/** A Node process that starts `sleep 600` with spawnOwned (or plain spawn) and prints its pid. */
async function parentWithChild(owned: boolean): Promise<{ parent: ReturnType<typeof spawn>; childPid: number }> {
  const script = owned
    ? `import { spawnOwned } from ${JSON.stringify(new URL('./processes.ts', import.meta.url).href)};
       const { child } = spawnOwned('sleep', ['600']); console.log(child.pid); setInterval(() => {}, 1000);`
    : `import { spawn } from 'node:child_process';
       const child = spawn('sleep', ['600'], { stdio: 'ignore' }); console.log(child.pid); setInterval(() => {}, 1000);`;
  const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
  return { parent, childPid: Number(line.toString().trim()) };
}

describe('owned child processes', () => {
  it('die when the process that started them is killed outright (SIGKILL runs no handler)', async () => {
    const { parent, childPid } = await parentWithChild(true);
    expect(isAlive(childPid)).toBe(true);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    // The kernel signals at once; 5 s is a generous bound for a loaded machine.
    expect(await goneWithin(childPid, 60_000)).toBe(true);
  });

  it('(control) a plain child outlives its killed parent, so the check above can fail', async () => {
    const { parent, childPid } = await parentWithChild(false);
    parent.kill('SIGKILL');
    await once(parent, 'exit');
    try {
      expect(await goneWithin(childPid, 500)).toBe(false);
    } finally {
      process.kill(childPid, 'SIGKILL');
    }
  });
});
