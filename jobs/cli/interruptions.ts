/**
 * SIGINT and SIGTERM as an AbortSignal for a command-line tool that stops its work cleanly
 * (closing what it opened) instead of dying mid-write; the exit code then follows the shell's
 * convention for the signal (128 + its number: 130, 143).
 */

/** SIGINT and SIGTERM abort the run (once each); `by` says which came, `dispose` stops listening. */
export function interruptions(): { signal: AbortSignal; by: () => 'SIGINT' | 'SIGTERM' | undefined; dispose: () => void } {
  const controller = new AbortController();
  let interruptedBy: 'SIGINT' | 'SIGTERM' | undefined;
  const onSignal = (signal: 'SIGINT' | 'SIGTERM') => () => {
    interruptedBy = signal;
    controller.abort();
  };
  const onInt = onSignal('SIGINT');
  const onTerm = onSignal('SIGTERM');
  process.once('SIGINT', onInt);
  process.once('SIGTERM', onTerm);
  return {
    signal: controller.signal,
    by: () => interruptedBy,
    dispose: () => {
      process.off('SIGINT', onInt);
      process.off('SIGTERM', onTerm);
    },
  };
}
