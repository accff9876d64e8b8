/**
 * Calendar arithmetic of the data client, pure: `YYYY-MM-DD` days as integers, a range cut into
 * request windows, and which windows are settled enough to cache.
 *
 * The client must run in browsers and carry no dependency, so it keeps its own copy of the
 * integer calendar (Howard Hinnant's days_from_civil / civil_from_days, proleptic Gregorian)
 * instead of importing the server's; a unit test checks the two agree. `Date` is avoided for the
 * same reasons the server avoids it: `Date.UTC` maps years 0-99 to 1900-1999 and rolls
 * 2026-02-30 over into March.
 */

/** Longest range one request may ask for, both ends included (interface spec section 8). */
export const MAX_WINDOW_DAYS = 31;

/**
 * A window is settled once it ends this many days or more before today (UTC). The server's
 * nightly run rewrites yesterday and the two days before it (late events), so on day T the days
 * up to T - 4 are final and the server itself marks such ranges cacheable for a day.
 */
export const SETTLED_AFTER_DAYS = 4;

const MS_PER_DAY = 86_400_000;
const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

/** One request's range: inside a single calendar month, so at most 31 days. */
export interface DateWindow {
  /** First day, YYYY-MM-DD, included. */
  startDate: string;
  /** Last day, YYYY-MM-DD, included. */
  endDate: string;
  /** First day as days since 1970-01-01. */
  start: number;
  /** Last day as days since 1970-01-01. */
  end: number;
  /** Days in the window, both ends included. */
  days: number;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

function epochDayOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * ((month + 9) % 12) + 2) / 5) + day - 1;
  return era * 146_097 + yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear - 719_468;
}

function civilOf(epochDay: number): { year: number; month: number; day: number } {
  const z = epochDay + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day: dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1 };
}

/** `YYYY-MM-DD` of an epoch day. */
export function formatDay(epochDay: number): string {
  const { year, month, day } = civilOf(epochDay);
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/**
 * The epoch day of a `YYYY-MM-DD` string, or why it is not one: `format` when the shape is
 * wrong, `calendar` when the shape is right but the day does not exist (2026-02-29).
 */
export function parseDay(text: string): { ok: true; day: number } | { ok: false; problem: 'format' | 'calendar' } {
  const match = DAY_PATTERN.exec(text);
  if (!match) return { ok: false, problem: 'format' };
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return { ok: false, problem: 'calendar' };
  return { ok: true, day: epochDayOf(year, month, day) };
}

/** The UTC day an instant (epoch ms) falls on. */
export function dayOfInstant(epochMs: number): number {
  return Math.floor(epochMs / MS_PER_DAY);
}

/** The next 00:00 UTC strictly after an instant: when a UTC-day quota starts over. */
export function nextUtcMidnight(epochMs: number): number {
  return (dayOfInstant(epochMs) + 1) * MS_PER_DAY;
}

function windowOf(start: number, end: number): DateWindow {
  return { startDate: formatDay(start), endDate: formatDay(end), start, end, days: end - start + 1 };
}

/**
 * Cut `[from, to]` (epoch days, from <= to) into request windows along calendar months: the
 * first and last windows are the partial months at the ends, every other one a whole month.
 *
 * Months rather than 31-day strides from `from`: the windows of overlapping queries then
 * coincide (a rolling "last 365 days" dashboard asks for the same whole months every day), so
 * cached settled windows are reused instead of every query cutting the year differently. The
 * price is at most one request more than 31-day strides (13 windows instead of 12 for a year
 * that does not start on the 1st).
 */
export function monthWindows(from: number, to: number): DateWindow[] {
  const windows: DateWindow[] = [];
  let start = from;
  while (start <= to) {
    const { year, month, day } = civilOf(start);
    const monthEnd = start + daysInMonth(year, month) - day;
    const end = Math.min(monthEnd, to);
    windows.push(windowOf(start, end));
    start = end + 1;
  }
  return windows;
}

/** Whether no scheduled server run will rewrite any day of `window` any more, as of `nowMs`. */
export function isSettled(window: DateWindow, nowMs: number): boolean {
  return window.end <= dayOfInstant(nowMs) - SETTLED_AFTER_DAYS;
}
