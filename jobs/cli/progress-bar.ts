/**
 * The progress report of the long-running commands (seed, events:import, stats:materialize,
 * data:fetch), on stderr so stdout stays data. Where a person watches (stderr is a terminal) a
 * cli-progress bar; anywhere else (a CI log, `2> file`, a supervisor) one plain line every few
 * seconds with done/total and the rate, so a long run is seen to move without filling the log
 * with a redrawn bar. The interval is PROGRESS_INTERVAL_MS (default 2000), for tests.
 */
import cliProgress from 'cli-progress';

export interface Progress {
  /** `done` so far; `total` when it became known or changed; `status` shown beside the numbers. */
  update(done: number, change?: { total?: number; status?: string }): void;
  /** Last line (not on a terminal: the final figures), and no more output. */
  stop(): void;
}

export interface ProgressOptions {
  /** What is counted, plural: `days`, `bytes`, `windows`. */
  unit: string;
  stream?: NodeJS.WritableStream & { isTTY?: boolean };
  /** Milliseconds between lines where no terminal is attached. */
  intervalMs?: number;
}

export const DEFAULT_INTERVAL_MS = 2_000;

function intervalFromEnv(): number {
  const text = process.env['PROGRESS_INTERVAL_MS'];
  return text !== undefined && /^\d{1,7}$/.test(text) && Number(text) > 0 ? Number(text) : DEFAULT_INTERVAL_MS;
}

/** One reporter for `total` things (0 when not known yet), labelled `label` (e.g. `materializing`). */
export function progress(total: number, label: string, options: ProgressOptions): Progress {
  const { unit, stream = process.stderr } = options;
  if (stream.isTTY) return terminalBar(total, label, unit, stream);
  const intervalMs = options.intervalMs ?? intervalFromEnv();
  const started = performance.now();
  let state = { done: 0, total, status: '' };
  let lastLine = started;
  const line = () => {
    lastLine = performance.now();
    const seconds = (lastLine - started) / 1000;
    const rate = seconds > 0 ? Math.round(state.done / seconds) : 0;
    const percent = state.total > 0 ? ` (${Math.floor((100 * state.done) / state.total)}%)` : '';
    stream.write(`${label}: ${state.done}/${state.total || '?'} ${unit}${percent}, ${rate} ${unit}/s, ${seconds.toFixed(1)} s${state.status ? `, ${state.status}` : ''}\n`);
  };
  // A stalled run (a lock wait, a back-off) still reports; unref'd, so it never keeps the process alive.
  const timer = setInterval(() => performance.now() - lastLine >= intervalMs && line(), intervalMs);
  timer.unref();
  return {
    update(done, change = {}) {
      state = { done, total: change.total ?? state.total, status: change.status ?? state.status };
      if (performance.now() - lastLine >= intervalMs) line();
    },
    stop() {
      clearInterval(timer);
      line();
    },
  };
}

function terminalBar(total: number, label: string, unit: string, stream: NodeJS.WritableStream): Progress {
  const bar = new cliProgress.SingleBar(
    { stream: stream as NodeJS.WriteStream, format: `${label} [{bar}] {percentage}% | {value}/{total} ${unit} | eta {eta_formatted} {status}`, hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, change = {}) {
      if (!started) {
        bar.start(change.total ?? total, 0, { status: '' });
        started = true;
      } else if (change.total !== undefined) bar.setTotal(change.total);
      bar.update(done, change.status === undefined ? {} : { status: change.status });
    },
    stop() {
      if (started) bar.stop();
    },
  };
}
