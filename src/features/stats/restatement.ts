/**
 * A *restatement*: a run of the materializer changed the figures of a day the data API had
 * already called final (settled.ts, X-Data-Settled-Through). No scheduled run does that; an
 * operator's backfill after a late import or a correction does (`stats:materialize`). Pure: the
 * materializer reads the settled rows of a batch before and after its upsert and hands them here.
 *
 * Clients learn of it by revalidating: the ETag of a data response is the SHA-256 of its body
 * (src/lib/http-validators.ts), so it differs exactly when a record of the range differs, and an
 * `If-None-Match` with the old tag gets the new figures instead of a 304 (docs/restatements.md).
 */
import type { DailyStatRow } from '../../db/schema.ts';
import { centsToAmount } from './money.ts';

/** What a data record says about a day, as stored. */
export type DayFigures = Pick<DailyStatRow, 'txn_count' | 'impr_count' | 'revenue_minor'>;

/** A settled day whose figures a run changed. */
export interface Restatement {
  /** The day, YYYY-MM-DD. */
  day: string;
  before: DayFigures;
  after: DayFigures;
}

const FIELDS = ['txn_count', 'impr_count', 'revenue_minor'] as const;

function figuresOf(row: DayFigures): DayFigures {
  return { txn_count: row.txn_count, impr_count: row.impr_count, revenue_minor: row.revenue_minor };
}

/**
 * The days of `before` whose figures differ in `after` (rows of the same days, read before and
 * after a rewrite), in the order of `before`. A rewrite that lands on the same figures (the
 * materializer is idempotent) is no restatement. The materializer never deletes a row, so every
 * day of `before` is in `after`; one that is not would be reported with zeros.
 */
export function restatementsOf(before: readonly (DayFigures & { day: string })[], after: readonly (DayFigures & { day: string })[]): Restatement[] {
  const now = new Map(after.map((row) => [row.day, row]));
  const changed: Restatement[] = [];
  for (const row of before) {
    const next = now.get(row.day) ?? { txn_count: 0, impr_count: 0, revenue_minor: 0 };
    if (FIELDS.some((field) => next[field] !== row[field])) changed.push({ day: row.day, before: figuresOf(row), after: figuresOf(next) });
  }
  return changed;
}

/**
 * One line for an operator: the day and the fields that changed, old -> new, under the data
 * interface's names (revenue as the decimal the API serves), e.g.
 * `2026-01-15: txn_count 62 -> 67, service_revenue 1873.25 -> 1901.00`.
 */
export function describeRestatement({ day, before, after }: Restatement): string {
  const parts: string[] = [];
  if (before.txn_count !== after.txn_count) parts.push(`txn_count ${before.txn_count} -> ${after.txn_count}`);
  if (before.impr_count !== after.impr_count) parts.push(`impr_count ${before.impr_count} -> ${after.impr_count}`);
  if (before.revenue_minor !== after.revenue_minor) parts.push(`service_revenue ${centsToAmount(before.revenue_minor).toFixed(2)} -> ${centsToAmount(after.revenue_minor).toFixed(2)}`);
  return `${day}: ${parts.join(', ')}`;
}
