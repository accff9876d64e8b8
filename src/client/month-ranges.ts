/**
 * Request months of the data client, pure: a range cut into months the server accepts.
 *
 * Days are epoch days of src/lib/calendar.ts, the project's one calendar: it is pure and
 * dependency-free, so the client (browsers included) imports it like the server does.
 */
import { civilOf, daysInMonth, formatDay } from '../lib/calendar.ts';

/**
 * A day is settled once it is this many days or more before today (UTC). The server's nightly
 * run rewrites yesterday and the two days before it (late events), so on day T the days up to
 * T - 4 are final; the server says so in X-Data-Settled-Through, and this count stands in for a
 * server that does not (settled-days.ts).
 */
export const SETTLED_AFTER_DAYS = 4;

/** One request's range: inside a single calendar month, so at most 31 days. */
export interface MonthRange {
  /** First day, YYYY-MM-DD, included. */
  startDate: string;
  /** Last day, YYYY-MM-DD, included. */
  endDate: string;
  /** First day as days since 1970-01-01. */
  start: number;
  /** Last day as days since 1970-01-01. */
  end: number;
  /** Days in the month, both ends included. */
  days: number;
}

function windowOf(start: number, end: number): MonthRange {
  return { startDate: formatDay(start), endDate: formatDay(end), start, end, days: end - start + 1 };
}

/**
 * Cut `[from, to]` (epoch days, from <= to) into request months along calendar months: the
 * first and last months are the partial months at the ends, every other one a whole month.
 *
 * Months rather than 31-day strides from `from`: the months of overlapping queries then
 * coincide (a rolling "last 365 days" dashboard asks for the same whole months every day), so
 * cached settled months are reused instead of every query cutting the year differently. The
 * price is at most one request more than 31-day strides (13 months instead of 12 for a year
 * that does not start on the 1st).
 */
export function monthRanges(from: number, to: number): MonthRange[] {
  const months: MonthRange[] = [];
  let start = from;
  while (start <= to) {
    const { year, month, day } = civilOf(start);
    const monthEnd = start + daysInMonth(year, month) - day;
    const end = Math.min(monthEnd, to);
    months.push(windowOf(start, end));
    start = end + 1;
  }
  return months;
}
