import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dataResponseBody } from '../../../../src/features/stats/data-body.ts';
import { DataRecord, DataResponse } from '../../../../src/features/stats/data-record.ts';
import { MAX_EXACT_CENTS } from '../../../../src/features/stats/money.ts';
import { toDataRecord, type DailyStatResult } from '../../../../src/features/stats/stats.server.ts';

/** What the endpoint sent before data-body.ts: the rows made numbers (readDailyStats), records, JSON.stringify. */
function viaRecords(rows: readonly DailyStatResult[]): string {
  const stored = rows.map((row) => ({
    day: row.day,
    txn_count: Number(row.txn_count),
    impr_count: Number(row.impr_count),
    revenue_minor: Number(row.revenue_minor),
    materialized_at: Number(row.materialized_at),
  }));
  const response: DataResponse = { status: 'Success', data: stored.map(toDataRecord) };
  return JSON.stringify(response);
}

const count = fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER });
/** A driver's value: SQLite's number, or PostgreSQL's bigint or text (create-db.ts asks pg for numbers). */
const driverValue = (n: fc.Arbitrary<number>) => fc.oneof(n, n.map((v) => BigInt(v)), n.map(String));
const day = fc.date({ min: new Date('1970-01-01'), max: new Date('9999-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const row: fc.Arbitrary<DailyStatResult> = fc.record({
  day,
  txn_count: driverValue(count),
  impr_count: driverValue(count),
  revenue_minor: driverValue(fc.integer({ min: 0, max: MAX_EXACT_CENTS })),
  materialized_at: driverValue(count),
});

describe('dataResponseBody', () => {
  it('writes the bytes the endpoint sent through readDailyStats and toDataRecord, for any rows', () => {
    expect(dataResponseBody([])).toBe('{"status":"Success","data":[]}');
    const one: DailyStatResult = { day: '2026-07-01', txn_count: 74, impr_count: 2398, revenue_minor: 251_964, materialized_at: 1 };
    expect(dataResponseBody([one])).toBe(viaRecords([one]));
    expect(dataResponseBody([one])).toBe('{"status":"Success","data":[{"date":"2026-07-01","txn_count":74,"impr_count":2398,"service_revenue":2519.64}]}');
    fc.assert(
      fc.property(fc.array(row, { maxLength: 40 }), (rows) => {
        expect(dataResponseBody(rows)).toBe(viaRecords(rows));
      }),
    );
  });

  it('writes the members the schema declares, in its order, and a body the schema accepts', () => {
    const rows: DailyStatResult[] = [
      { day: '2026-07-01', txn_count: 0, impr_count: 0, revenue_minor: 0, materialized_at: 1 },
      { day: '2026-07-02', txn_count: 5, impr_count: 9, revenue_minor: 7, materialized_at: 2 },
    ];
    const parsed = JSON.parse(dataResponseBody(rows)) as { data: Array<Record<string, unknown>> };
    expect(DataResponse.parse(parsed)).toEqual(parsed);
    for (const record of parsed.data) expect(Object.keys(record)).toEqual(Object.keys(DataRecord.shape));
  });

  it('refuses, as toDataRecord does, an amount it cannot print exactly', () => {
    const rows: DailyStatResult[] = [{ day: '2026-07-01', txn_count: 1, impr_count: 1, revenue_minor: MAX_EXACT_CENTS + 1, materialized_at: 1 }];
    expect(() => dataResponseBody(rows)).toThrow(RangeError);
    expect(() => viaRecords(rows)).toThrow(RangeError);
  });
});
