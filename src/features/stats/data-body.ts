/**
 * The 200 body of Get Data, built from the rows as the driver returned them: one DataRecord per
 * row and one JSON.stringify. It is, byte for byte, what the endpoint sent when the rows went
 * through readDailyStats' objects and toDataRecord first (the unit test
 * test/unit/features/stats/data-body.test.ts compares the two over generated rows); the row
 * object in between and the second pass cost a cache miss about half of its body (bench/NOTES.md).
 */
import type { DataRecord, DataResponse } from './data-record.ts';
import { centsToAmount } from './money.ts';
import type { DailyStatResult } from './stats.server.ts';

/** `{"status":"Success","data":[…]}` for `rows` (numbers, or bigints or text on PostgreSQL: `Number` as readDailyStats applies it). */
export function dataResponseBody(rows: readonly DailyStatResult[]): string {
  const data = new Array<DataRecord>(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    data[i] = { date: row.day, txn_count: Number(row.txn_count), impr_count: Number(row.impr_count), service_revenue: centsToAmount(Number(row.revenue_minor)) };
  }
  const response: DataResponse = { status: 'Success', data };
  return JSON.stringify(response);
}
