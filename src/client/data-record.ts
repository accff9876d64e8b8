/**
 * The records of the community data interface as the client hands them out, and the check that
 * a body really is a DataResponse (docs/interface.md section 2).
 *
 * The server's zod schema (src/features/stats/data-record.ts) is the source of truth; the
 * client cannot import it (no dependencies, browser-safe), so the type is restated here and a
 * type-level test keeps the two identical.
 */
import type { MonthRange } from './month-ranges.ts';

/** Aggregated statistics of one UTC day. */
export interface DataRecord {
  /** The UTC calendar day the record is for, YYYY-MM-DD. */
  date: string;
  /** Number of transactions that day. */
  txn_count: number;
  /** Number of impressions that day. */
  impr_count: number;
  /** Revenue of that day's transactions in currency units, exact to the cent (at most two decimals). */
  service_revenue: number;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * The records of `month` in `value` (a parsed 200 body, or a cached array when `cached`), or a
 * sentence saying what is wrong. Each record must be a day of the month, in ascending order,
 * with non-negative integer counts and a non-negative finite revenue. Unknown fields are
 * dropped, so what the client returns always has exactly the four documented ones.
 */
export function recordsOf(value: unknown, month: MonthRange, cached = false): DataRecord[] | string {
  let data: unknown = value;
  if (!cached) {
    if (typeof value !== 'object' || value === null) return 'the body is not a JSON object';
    const body = value as { status?: unknown; data?: unknown };
    if (body.status !== 'Success') return `status is ${JSON.stringify(body.status)}, not "Success"`;
    data = body.data;
  }
  if (!Array.isArray(data)) return 'data is not an array';
  const records: DataRecord[] = [];
  let previous = '';
  for (const [index, item] of data.entries()) {
    if (typeof item !== 'object' || item === null) return `data[${index}] is not an object`;
    const { date, txn_count, impr_count, service_revenue } = item as Record<string, unknown>;
    if (typeof date !== 'string' || date < month.startDate || date > month.endDate || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      return `data[${index}].date ${JSON.stringify(date)} is not a day from ${month.startDate} to ${month.endDate}`;
    }
    if (date <= previous) return `data[${index}].date ${date} is not after ${previous}`;
    if (!isCount(txn_count) || !isCount(impr_count)) return `data[${index}] (${date}) has a count that is not a non-negative integer`;
    if (typeof service_revenue !== 'number' || !Number.isFinite(service_revenue) || service_revenue < 0) {
      return `data[${index}] (${date}) has a service_revenue that is not a non-negative number`;
    }
    records.push({ date, txn_count, impr_count, service_revenue });
    previous = date;
  }
  return records;
}
