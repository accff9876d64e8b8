import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOG, catalogByName } from '../../../../src/features/metrics/catalog.ts';
import { createMetrics } from '../../../../src/features/metrics/registry.server.ts';
import { BACKUP_GAUGE } from '../../../../src/app/jobs/backup.ts';

const ROOT = resolve(import.meta.dirname, '../../../..');

/** Every metric name src/ passes to a meter (`meter.count('x'`, `deps.meter?.observe('x'`, `(meter ?? NO_METER).set('x'`). */
function namesUsedInSource(): Map<string, string> {
  const used = new Map<string, string>();
  const call = /meter\)?\??\.(count|observe|set)\(\s*'([^']+)'/g;
  for (const entry of readdirSync(join(ROOT, 'src'), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const file = join(entry.parentPath, entry.name);
    for (const match of readFileSync(file, 'utf8').matchAll(call)) used.set(match[2]!, `${match[1]} in ${file.slice(ROOT.length + 1)}`);
  }
  return used;
}

describe('the metrics catalog', () => {
  it('declares every name the source counts, times or sets, with the type it is used as', () => {
    const used = namesUsedInSource();
    // The scan finds the instrumented features, so an empty result cannot pass for "all declared".
    expect(used.size).toBeGreaterThanOrEqual(15);
    const byName = catalogByName();
    const wrong = [...used].filter(([name, where]) => {
      const family = byName.get(name);
      const kind = where.split(' ')[0];
      return family === undefined || { count: 'counter', observe: 'histogram', set: 'gauge' }[kind!] !== family.type;
    });
    expect(wrong).toEqual([]);
  });

  it('follows the Prometheus naming conventions: counters end in _total, units are base units', () => {
    for (const family of CATALOG) {
      expect(family.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(family.name.endsWith('_total')).toBe(family.type === 'counter');
      if (family.type === 'histogram') expect(family.name).toMatch(/_(seconds|bytes)$/);
      expect(family.name).not.toMatch(/_(milliseconds|ms|kb|mb)(_|$)/);
      expect(family.help.length).toBeGreaterThan(10);
    }
  });

  it('declares the scheduled backup\'s last-success gauge (set through a constant) without labels', () => {
    expect(BACKUP_GAUGE).toBe('backup_last_success_timestamp_seconds');
    expect(catalogByName().get(BACKUP_GAUGE)).toMatchObject({ type: 'gauge', labels: [] });
  });

  it('refuses a name declared twice', () => {
    expect(() => catalogByName([...CATALOG, CATALOG[0]!])).toThrow(/declared twice/);
  });

  it('makes an undeclared name, a wrong type or an undeclared label an error', () => {
    const { meter } = createMetrics({ processMetrics: false });
    expect(() => meter.count('no_such_metric_total')).toThrow(/not declared in the catalog/);
    expect(() => meter.set('http_requests_total', 1)).toThrow(/is a counter, not a gauge/);
    expect(() => meter.count('http_requests_total', { route: '/', path: '/x' })).toThrow(/has no label path/);
  });
});
