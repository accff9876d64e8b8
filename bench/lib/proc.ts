/**
 * Child processes of the benchmark: servers pinned to one core, the load generator (this
 * process) to the other, so neither steals the other's CPU and the server's figures are its own.
 * Servers announce readiness with the JSON log line `{"msg":"listening","url":...}`; their
 * output goes to a file, not a pipe, so reading it costs the load generator nothing.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';

/** Core of every server under test and every baseline; the load generator gets `LOAD_CORE`. */
export const SERVER_CORE = '0';
export const LOAD_CORE = '1';
export const canPin = availableParallelism() >= 2 && hasCommand('taskset');

export function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Pin this process and every thread it has or will start (autocannon, the TTFB loop) to LOAD_CORE. */
export function pinSelf(): void {
  if (!canPin) return;
  // `taskset -a` fails when one of our threads exits while it walks them (Node's start-up
  // threads do): try again, the set settles within a few attempts.
  for (let attempt = 1; ; attempt++) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', LOAD_CORE, String(process.pid)], { stdio: 'ignore' });
      return;
    } catch (error) {
      if (attempt >= 5) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}

/** argv prefix that runs a command on `cores` (children inherit our LOAD_CORE pinning otherwise). */
export function pinned(cores: string, command: string, args: readonly string[]): [string, string[]] {
  return canPin ? ['taskset', ['-c', cores, command, ...args]] : [command, [...args]];
}

export interface Running {
  name: string;
  pid: number;
  /** The origin it listens on. */
  url: string;
  logFile: string;
  /** Peak resident set size so far (VmHWM), in MiB. */
  peakRssMb(): number;
  /** Resident set size now (VmRSS), in MiB. */
  rssMb(): number;
  /** CPU time used so far (user + system), in seconds. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

export interface StartOptions {
  name: string;
  /** Node arguments (script and its flags); runs on the Node that runs the benchmark. */
  args: readonly string[];
  env: Record<string, string>;
  logFile: string;
  cwd?: string;
  timeoutMs?: number;
  /** How often the log is read for the "listening" line, ms (default 50; start-up timings want less). */
  pollMs?: number;
}

/** Start a Node server on SERVER_CORE and wait for its "listening" line. */
export async function startServer(options: StartOptions): Promise<Running> {
  const out = openSync(options.logFile, 'w');
  const [command, args] = pinned(SERVER_CORE, process.execPath, options.args);
  const child = spawn(command, args, { cwd: options.cwd ?? process.cwd(), env: options.env, stdio: ['ignore', out, out] });
  closeSync(out);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let finished = false;
  void exited.then(() => (finished = true));

  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  let url: string | undefined;
  while (!url) {
    if (finished || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${options.name} did not start; its output (${options.logFile}):\n${tail(options.logFile)}`);
    }
    await sleep(options.pollMs ?? 50);
    url = listeningUrl(readFileSync(options.logFile, 'utf8'));
  }
  const pid = child.pid!;
  return {
    name: options.name,
    pid,
    url,
    logFile: options.logFile,
    peakRssMb: () => procStatusKb(pid, 'VmHWM') / 1024,
    rssMb: () => procStatusKb(pid, 'VmRSS') / 1024,
    cpuSeconds: () => procCpuSeconds(pid),
    stop: () => stopChild(child, exited),
  };
}

/** The `url` of the first JSON log line whose msg is "listening". */
function listeningUrl(log: string): string | undefined {
  const line = log.split('\n').find((l) => l.includes('"msg":"listening"'));
  if (!line) return undefined;
  try {
    return (JSON.parse(line) as { url?: string }).url;
  } catch {
    return undefined;
  }
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

export function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

function procStatusKb(pid: number, field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) : Number.NaN;
}

/** utime + stime from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 1/100 s on Linux). */
function procCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Run a command to completion; resolves with its exit code, wall time and captured output. */
export function runCommand(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string } = {},
): Promise<{ code: number | null; ms: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, { cwd: options.cwd ?? process.cwd(), env: options.env ?? process.env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, ms: performance.now() - started, stdout, stderr }));
    // A child that exits without reading all its input (an error) must not crash us with EPIPE.
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input);
  });
}
