/**
 * The 200 body of Get Data, written from the stored rows in one pass. It is, byte for byte, what
 * `JSON.stringify({ status: 'Success', data: rows.map(toDataRecord) })` gives for the same rows
 * (DataResponse in data-record.ts stays the shape's single source: the unit test
 * test/unit/features/stats/data-body.test.ts compares the two over generated rows and checks the
 * members against the schema's), without a row object and a record object per day: on a cache
 * miss the two objects and the generic stringify were half of what the body cost (bench/NOTES.md).
 */
import { centsToAmount } from './money.ts';
import type { DailyStatResult } from './stats.server.ts';

/** A number as JSON.stringify writes it: shortest round-trip text, `null` for NaN and infinities. */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** `{"status":"Success","data":[…]}` for `rows` as the driver returned them (numbers, or bigints or text on PostgreSQL). */
export function dataResponseBody(rows: readonly DailyStatResult[]): string {
  let body = '{"status":"Success","data":[';
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    // The members in DataRecord's order; `Number` as readDailyStats applies it.
    body +=
      `${i === 0 ? '' : ','}{"date":${JSON.stringify(row.day)},"txn_count":${jsonNumber(Number(row.txn_count))},` +
      `"impr_count":${jsonNumber(Number(row.impr_count))},"service_revenue":${jsonNumber(centsToAmount(Number(row.revenue_minor)))}}`;
  }
  return `${body}]}`;
}
