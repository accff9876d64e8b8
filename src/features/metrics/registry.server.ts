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

export interface Metrics {
  meter: Meter;
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
/** A bound child: prom-client hashes the label object on every call, a child skips that. */
type Child = { inc(value?: number): void } | { set(value: number): void } | { observe(value: number): void };
/** More label combinations per family than this means a label takes request text: refused. */
const MAX_CHILDREN = 5_000;

interface Entry {
  family: MetricFamily;
  instrument: Instrument;
  children: Map<string, Child>;
}

function instrumentOf(family: MetricFamily, registry: Registry): Instrument {
  const config = { name: family.name, help: family.help, labelNames: [...family.labels], registers: [registry] };
  if (family.type === 'counter') return new Counter(config);
  if (family.type === 'gauge') return new Gauge(config);
  return new Histogram({ ...config, buckets: [...(family.buckets ?? [])] });
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const entries = new Map<string, Entry>();
  for (const family of catalogByName(options.families ?? CATALOG).values()) {
    entries.set(family.name, { family, instrument: instrumentOf(family, registry), children: new Map() });
  }

  function childOf(name: string, type: MetricType, labels: Labels | undefined): Child {
    const entry = entries.get(name);
    if (entry === undefined) throw new Error(`metric ${name} is not declared in the catalog (src/features/metrics/catalog.ts)`);
    if (entry.family.type !== type) throw new Error(`metric ${name} is a ${entry.family.type}, not a ${type}`);
    const names = entry.family.labels;
    let key = '';
    for (const label of names) key += `${labels?.[label] ?? ''}\u0000`;
    let child = entry.children.get(key);
    if (child !== undefined) return child;
    if (labels !== undefined) {
      for (const label in labels) if (!names.includes(label)) throw new Error(`metric ${name} has no label ${label}`);
    }
    if (entry.children.size >= MAX_CHILDREN) throw new Error(`metric ${name} has more than ${MAX_CHILDREN} series: a label takes unbounded values`);
    const values = Object.fromEntries(names.map((label) => [label, labels?.[label] ?? '']));
    child = (names.length === 0 ? entry.instrument : entry.instrument.labels(values)) as Child;
    entry.children.set(key, child);
    return child;
  }

  const meter: Meter = {
    count: (name, labels, by = 1) => (childOf(name, 'counter', labels) as { inc(value: number): void }).inc(by),
    observe: (name, value, labels) => (childOf(name, 'histogram', labels) as { observe(value: number): void }).observe(value),
    set: (name, value, labels) => (childOf(name, 'gauge', labels) as { set(value: number): void }).set(value),
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
