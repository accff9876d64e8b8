/**
 * Child processes the tests own: servers (PostgreSQL, Redis) that must never outlive the run.
 *
 * A normal end stops them in a teardown, but vitest leaves on Ctrl-C or SIGTERM with
 * `process.exit()` without running global teardowns, and a killed runner runs nothing at all.
 * So each child is started through util-linux's `setpriv --pdeathsig`, which asks the kernel to
 * signal it when its parent dies (prctl PR_SET_PDEATHSIG, set after any change of user since a
 * change of credentials clears it): no orphan survives whatever ends the runner.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

/** A port that was free a moment ago on 127.0.0.1 (the kernel's pick from the ephemeral range). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (address !== null && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => spawnSync(path, ['--version']).status === 0);

export interface OwnedProcess {
  child: ChildProcess;
  /** The last lines the process wrote to stdout and stderr (for error messages). */
  output(): string;
  /** Resolves with the exit code, or the signal's name, once the process is gone. */
  exited: Promise<number | string>;
  /** Resolves once a line matching `pattern` was written; rejects if the process exits first or after `timeoutMs`. */
  waitForLine(pattern: RegExp, timeoutMs: number): Promise<void>;
  /** Send `signal` and wait for the exit; SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

export interface OwnedProcessOptions {
  /** Run as this OS user (needs root): PostgreSQL refuses to run as root. */
  user?: string | undefined;
  /** Signal the kernel sends the process when the runner dies. */
  deathSignal?: NodeJS.Signals;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Lines of output kept for error messages; a server that logs forever must not grow memory. */
const KEPT_LINES = 60;

/** Start `command` tied to this process (see the file comment); its output is always drained. */
export function spawnOwned(command: string, args: readonly string[], options: OwnedProcessOptions = {}): OwnedProcess {
  const { user, deathSignal = 'SIGTERM', cwd, env } = options;
  if (user !== undefined && !SETPRIV) throw new Error(`setpriv (util-linux) is needed to run ${command} as ${user}`);
  const prefix = SETPRIV ? [SETPRIV, ...(user !== undefined ? [`--reuid=${user}`, `--regid=${user}`, '--init-groups'] : []), `--pdeathsig=${deathSignal.replace(/^SIG/, '')}`, '--'] : [];
  const argv = [...prefix, command, ...args];
  const child = spawn(argv[0]!, argv.slice(1), { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const waiters = new Set<{ pattern: RegExp; resolve: () => void }>();
  let partial = '';
  const onData = (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      if (lines.length > KEPT_LINES) lines.shift();
      for (const waiter of waiters) if (waiter.pattern.test(line)) waiter.resolve();
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const output = () => [...lines, partial].join('\n').trim();
  const exited = new Promise<number | string>((resolve) => {
    child.once('error', (error) => {
      lines.push(`${command}: ${error.message}`);
      resolve('spawn error');
    });
    child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown'));
  });
  const gone = () => child.exitCode !== null || child.signalCode !== null;

  return {
    child,
    output,
    exited,
    waitForLine(pattern, timeoutMs) {
      return new Promise<void>((resolve, reject) => {
        const waiter = {
          pattern,
          resolve: () => {
            done();
            resolve();
          },
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`${command} wrote no line matching ${pattern} within ${timeoutMs} ms:\n${output()}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        waiters.add(waiter);
        void exited.then((how) => {
          if (!waiters.has(waiter)) return;
          done();
          reject(new Error(`${command} exited (${how}) before writing a line matching ${pattern}:\n${output()}`));
        });
      });
    },
    async stop(signal = 'SIGTERM', graceMs = 10_000) {
      if (gone()) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Run `command` to completion as an owned process; rejects with its output unless it exits 0. */
export async function runOwned(command: string, args: readonly string[], options: OwnedProcessOptions = {}): Promise<void> {
  const run = spawnOwned(command, args, options);
  const how = await run.exited;
  if (how !== 0) throw new Error(`${command} ${args.join(' ')} failed (${how}):\n${run.output()}`);
}
