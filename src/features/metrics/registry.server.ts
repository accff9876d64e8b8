/**
 * The one Prometheus registry of the process (prom-client), built from the catalog, with the
 * library's default process metrics (event-loop lag, heap, GC, RSS) on it, and the `Meter`
 * (src/lib/meter.ts) features count through. Made once by the composition root (src/app/app.ts);
 * there is never a second registry, and prom-client's global one is left empty.
 *
 * Scrape-time readings (rows waiting in the outbox, the newest materialization, bytes a cache
 * holds) are collectors the root registers with `collect`: each runs before an exposition,
 * within a deadline, and a failing one keeps its gauge's last value and counts
 * `metrics_collect_errors_total{collector}` rather than failing the scrape.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Labels, Meter } from '../../lib/meter.ts';
import { CATALOG, catalogByName, type MetricFamily, type MetricType } from './catalog.ts';

/** A reading taken at scrape time: sets gauges through the meter. */
export type Collector = (meter: Meter) => void | Promise<void>;

/** One series of a family, bound once: records a value (a counter's increment, an observation). */
export type Series = (value: number) => void;

export interface Metrics {
  meter: Meter;
  /**
   * The series of family `name` with `labels`, checked and bounded as the meter's calls are,
   * for a hot path: recording through it skips the meter's name and label lookups (the request
   * observer, src/app/request-metrics.ts, binds its series once per label combination).
   */
  bind(name: string, labels?: Labels): Series;
  /** Register a scrape-time reading, named for its error counter's label. */
  collect(name: string, collector: Collector): void;
  /** Run the collectors, then the exposition in the Prometheus text format 0.0.4. */
  scrape(): Promise<string>;
  /** The exposition's media type. */
  readonly contentType: string;
  /** Series (label combinations) the registry holds now, histograms counted once each. */
  seriesCount(): Promise<number>;
}

export interface MetricsOptions {
  families?: readonly MetricFamily[];
  /** Longest a collector may take before the scrape goes on without it. */
  collectTimeoutMs?: number;
  /** Default process metrics; tests of the catalog turn them off. */
  processMetrics?: boolean;
}

type Instrument = Counter | Gauge | Histogram;
/** One series, bound once (see `bindChild`). */
interface Child {
  record(value: number): void;
}
/** More label combinations per family than this means a label takes request text: refused. */
const MAX_CHILDREN = 5_000;

/** Bound series by label value, one level per label in the family's order; a Child at the last. */
type ChildTree = Map<string, ChildTree | Child>;

interface Entry {
  family: MetricFamily;
  instrument: Instrument;
  /**
   * Nested maps rather than one map keyed by the joined values: the values are the route table's
   * and the outcomes' own strings, whose hashes are cached, while a joined key is a new string
   * to hash on every call.
   */
  children: ChildTree;
  /** The family's unlabelled series, once bound. */
  only?: Child;
  series: number;
}

function instrumentOf(family: MetricFamily, registry: Registry): Instrument {
  const config = { name: family.name, help: family.help, labelNames: [...family.labels], registers: [registry] };
  if (family.type === 'counter') return new Counter(config);
  if (family.type === 'gauge') return new Gauge(config);
  return new Histogram({ ...config, buckets: [...(family.buckets ?? [])] });
}

/** prom-client's stored state of one counter or histogram series (its `hashMap` values). */
interface SeriesState {
  labels: Record<string, string>;
  value?: number;
  sum?: number;
  count?: number;
  bucketValues?: Record<string, number>;
}

function stateOf(instrument: Instrument, values: Record<string, string>): SeriesState {
  const states = Object.values((instrument as unknown as { hashMap: Record<string, SeriesState> }).hashMap);
  const state = states.find((candidate) => Object.keys(values).every((label) => candidate.labels[label] === values[label]));
  if (state === undefined) throw new Error(`prom-client holds no series for ${JSON.stringify(values)}`);
  return state;
}

/**
 * A series bound once. prom-client's labelled calls validate and hash the label object on every
 * call: 0.4 to 1.1 us each, 3.3 us of a cached request's five (bench/NOTES.md, "Metrics cost").
 * A counter's or histogram's series is created through the public API (`inc` by 0, `zero`), and
 * later calls add to the state prom-client exposes from, as its own `inc` and `observe` do. The
 * registry is never reset, so the state stays the one it reads; the registry tests pin the
 * exposition this produces. Gauges change at scrape time only and keep the public `set`.
 */
function bindChild(entry: Entry, values: Record<string, string>): Child {
  const { instrument, family } = entry;
  if (family.type === 'gauge') return { record: (value) => (instrument as Gauge).set(values, value) };
  if (family.type === 'counter') {
    (instrument as Counter).inc(values, 0);
    const state = stateOf(instrument, values);
    return {
      record(by) {
        if (!(by >= 0) || !Number.isFinite(by)) throw new TypeError(`counter ${family.name} cannot add ${by}`);
        state.value! += by;
      },
    };
  }
  (instrument as Histogram).zero(values);
  const state = stateOf(instrument, values);
  const counts = state.bucketValues!;
  const bounds = Float64Array.from(family.buckets ?? []);
  // prom-client keys a series' bucket counts by the bound as a property name: made once here,
  // not converted from the number on every observation.
  const keys = Array.from(bounds, String);
  return {
    record(value) {
      if (!Number.isFinite(value)) throw new TypeError(`histogram ${family.name} cannot observe ${value}`);
      state.sum! += value;
      state.count! += 1;
      // Counts per bucket, not cumulative: prom-client sums them when it writes the exposition.
      for (let i = 0; i < bounds.length; i++) {
        if (value <= bounds[i]!) {
          counts[keys[i]!]! += 1;
          break;
        }
      }
    },
  };
}

/**
 * The series of family `name` with `labels`, made on first use: checked against the catalog (its
 * type, its label names) and bounded (MAX_CHILDREN per family).
 */
function childOf(entries: ReadonlyMap<string, Entry>, name: string, type: MetricType, labels: Labels | undefined): Child {
  const entry = entries.get(name);
  if (entry === undefined) throw new Error(`metric ${name} is not declared in the catalog (src/features/metrics/catalog.ts)`);
  if (entry.family.type !== type) throw new Error(`metric ${name} is a ${entry.family.type}, not a ${type}`);
  const names = entry.family.labels;
  if (entry.only !== undefined && labels === undefined) return entry.only;
  let node = entry.children;
  for (let i = 0; i < names.length - 1; i++) {
    const value = labels?.[names[i]!] ?? '';
    let next = node.get(value) as ChildTree | undefined;
    if (next === undefined) node.set(value, (next = new Map()));
    node = next;
  }
  const last = names.length === 0 ? '' : (labels?.[names[names.length - 1]!] ?? '');
  const found = node.get(last) as Child | undefined;
  if (found !== undefined) return found;
  if (labels !== undefined) {
    for (const label in labels) if (!names.includes(label)) throw new Error(`metric ${name} has no label ${label}`);
  }
  if (entry.series >= MAX_CHILDREN) throw new Error(`metric ${name} has more than ${MAX_CHILDREN} series: a label takes unbounded values`);
  const child = bindChild(entry, Object.fromEntries(names.map((label) => [label, labels?.[label] ?? ''])));
  node.set(last, child);
  entry.series += 1;
  if (names.length === 0) entry.only = child;
  return child;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const entries = new Map<string, Entry>();
  for (const family of catalogByName(options.families ?? CATALOG).values()) {
    entries.set(family.name, { family, instrument: instrumentOf(family, registry), children: new Map(), series: 0 });
  }

  const meter: Meter = {
    count: (name, labels, by = 1) => childOf(entries, name, 'counter', labels).record(by),
    observe: (name, value, labels) => childOf(entries, name, 'histogram', labels).record(value),
    set: (name, value, labels) => childOf(entries, name, 'gauge', labels).record(value),
  };

  const collectors = new Map<string, Collector>();
  const timeoutMs = options.collectTimeoutMs ?? 2_000;
  /** One round of collectors at a time: scrapes that arrive meanwhile share it. */
  let collecting: Promise<void> | undefined;

  async function runCollector(name: string, collector: Collector): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        Promise.resolve().then(() => collector(meter)),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`collector ${name} took longer than ${timeoutMs} ms`)), timeoutMs);
        }),
      ]);
    } catch {
      meter.count('metrics_collect_errors_total', { collector: name });
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    meter,
    bind(name, labels) {
      const child = childOf(entries, name, entries.get(name)?.family.type ?? 'counter', labels);
      return (value) => child.record(value);
    },
    contentType: registry.contentType,
    collect(name, collector) {
      if (collectors.has(name)) throw new Error(`collector ${name} is registered twice`);
      collectors.set(name, collector);
    },
    async scrape() {
      collecting ??= Promise.all([...collectors].map(([name, collector]) => runCollector(name, collector))).then(() => {
        collecting = undefined;
      });
      await collecting;
      return registry.metrics();
    },
    async seriesCount() {
      let count = 0;
      for (const metric of await registry.getMetricsAsJSON()) {
        const values = metric.values as { metricName?: string; labels: Record<string, unknown> }[];
        // A histogram's child is one series for this purpose, not one per bucket line.
        count += String(metric.type) === 'histogram' ? values.filter((v) => v.metricName?.endsWith('_count')).length : values.length;
      }
      return count;
    },
  };
}
