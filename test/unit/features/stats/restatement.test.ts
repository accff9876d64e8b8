import { describe, expect, it } from 'vitest';
import { describeRestatement, restatementsOf } from '../../../../src/features/stats/restatement.ts';

const row = (day: string, txn_count: number, impr_count: number, revenue_minor: number) => ({ day, txn_count, impr_count, revenue_minor, materialized_at: 1 });

describe('restatements', () => {
  it('names the days whose figures changed, with both sets of figures, and not the days rewritten with the same ones', () => {
    const before = [row('2026-01-14', 10, 100, 500), row('2026-01-15', 62, 1_000, 187_325), row('2026-01-16', 3, 30, 0)];
    // A later materialized_at alone is no change.
    const after = [{ ...before[0]!, materialized_at: 2 }, row('2026-01-15', 67, 1_000, 190_100), row('2026-01-16', 3, 31, 0)];
    expect(restatementsOf(before, after)).toEqual([
      { day: '2026-01-15', before: { txn_count: 62, impr_count: 1_000, revenue_minor: 187_325 }, after: { txn_count: 67, impr_count: 1_000, revenue_minor: 190_100 } },
      { day: '2026-01-16', before: { txn_count: 3, impr_count: 30, revenue_minor: 0 }, after: { txn_count: 3, impr_count: 31, revenue_minor: 0 } },
    ]);
    expect(restatementsOf(before, before)).toEqual([]);
  });

  it('describes one for an operator with the changed fields only, under the data interface’s names', () => {
    const [first, second] = restatementsOf(
      [row('2026-01-15', 62, 1_000, 187_325), row('2026-01-16', 3, 30, 5)],
      [row('2026-01-15', 67, 1_000, 190_100), row('2026-01-16', 3, 31, 5)],
    );
    expect(describeRestatement(first!)).toMatchInlineSnapshot(`"2026-01-15: txn_count 62 -> 67, service_revenue 1873.25 -> 1901.00"`);
    expect(describeRestatement(second!)).toMatchInlineSnapshot(`"2026-01-16: impr_count 30 -> 31"`);
  });
});
