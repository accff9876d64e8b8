import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { anchors } from '../../../../scripts/markdown-docs.ts';
import { catalogByName } from '../../../../src/features/metrics/catalog.ts';

const ROOT = resolve(import.meta.dirname, '../../../..');
const RULES = resolve(ROOT, 'deploy/prometheus/alerts.yml');
const text = readFileSync(RULES, 'utf8');

function promtool(...args: string[]): { status: number | null; out: string } {
  const run = spawnSync('promtool', args, { cwd: resolve(ROOT, 'deploy/prometheus'), encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('the alert rules (deploy/prometheus/alerts.yml)', () => {
  it('pass promtool check rules', () => {
    const run = promtool('check', 'rules', 'alerts.yml');
    expect(run.out).toContain('SUCCESS: 9 rules found');
    expect(run.status).toBe(0);
  });

  it('fire and stay quiet as alerts.test.yml says (promtool test rules)', () => {
    const run = promtool('test', 'rules', 'alerts.test.yml');
    expect(run.out).toContain('SUCCESS');
    expect(run.status).toBe(0);
  }, 180_000);

  it('cover the issue\'s list, each with a runbook section in the operators\' guide', () => {
    const names = [...text.matchAll(/- alert: (\w+)/g)].map((m) => m[1]);
    expect(names).toEqual(['SiteInstanceDown', 'SiteHighErrorRatio', 'SiteHighLatency', 'ContactOutboxStuck', 'ContactDeliveriesFailing', 'ContactDeliveryGivenUp', 'StatsMaterializationStale', 'BackupTooOld', 'RateLimiterDegraded']);
    const guide = anchors(readFileSync(resolve(ROOT, 'docs/operators.md'), 'utf8'));
    const runbooks = [...text.matchAll(/runbook: "docs\/operators\.md#([a-z0-9-]+)"/g)].map((m) => m[1]!);
    expect(runbooks).toEqual(names.map((name) => `runbook-${name!.toLowerCase()}`));
    expect(runbooks.filter((anchor) => !guide.has(anchor))).toEqual([]);
  });

  it('use only metrics the server declares (and Prometheus\'s own up)', () => {
    const declared = catalogByName();
    const exprs = [...text.matchAll(/expr: (\|\n(?:\s{10}.*\n)+|.*\n)/g)].map((m) => m[1]!);
    expect(exprs).toHaveLength(9);
    const used = new Set(exprs.flatMap((expr) => [...expr.matchAll(/\b([a-z_]+(?:_total|_seconds|_bucket|_degraded))\b|\b(up)\{/g)].map((m) => (m[1] ?? m[2])!)));
    const unknown = [...used].filter((name) => name !== 'up' && !declared.has(name.replace(/_bucket$/, '')));
    expect(used.size).toBeGreaterThanOrEqual(7);
    expect(unknown).toEqual([]);
  });
});
