/**
 * The narrow dependency a feature declares to count and time what it does. The registry behind it
 * (Prometheus text exposition, the metrics feature) is made once by the composition root; a
 * feature never imports it, and a test or CLI passes `NO_METER`.
 *
 * Names follow Prometheus conventions (https://prometheus.io/docs/practices/naming/): base units
 * (`_seconds`, `_bytes`), counters end in `_total`. Every name used must be declared in the
 * metrics feature's catalog, and label values must come from small fixed sets (a route name, an
 * outcome), never from request text, so the number of series stays bounded.
 */
export type Labels = Readonly<Record<string, string>>;

export interface Meter {
  /** Counter `name` goes up by `by` (default 1). */
  count(name: string, labels?: Labels, by?: number): void;
  /** One observation of histogram `name`. */
  observe(name: string, value: number, labels?: Labels): void;
  /** Gauge `name` now reads `value`. */
  set(name: string, value: number, labels?: Labels): void;
}

/** A meter that records nothing: for tests, CLIs and a server run without metrics. */
export const NO_METER: Meter = Object.freeze({
  count() {},
  observe() {},
  set() {},
});
