/**
 * UTC calendar days as integers ("epoch days": days since 1970-01-01) and `YYYY-MM-DD` strings:
 * the one calendar of the project. The stats feature, the jobs, the pages and the integrator
 * client (src/client, which must run in browsers) all import it, so it stays pure and
 * dependency-free.
 *
 * Integer arithmetic (Howard Hinnant's days_from_civil / civil_from_days, proleptic Gregorian)
 * rather than `Date`: `Date.UTC` maps years 0-99 to 1900-1999 and silently rolls 2026-02-30
 * over to March, and we need a strict answer to "is this a calendar date?". The database
 * buckets events by the same rule, `[day * 86 400 000, (day + 1) * 86 400 000)` in epoch ms,
 * so SQLite and PostgreSQL agree without any engine date function.
 */

export const MS_PER_DAY = 86_400_000;

/** Strict shape of a day: four-digit year, two-digit month and day (ISO 8601 calendar date, RFC 3339 full-date). */
export const DAY_PATTERN = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Epoch day of a valid civil date (no range checks: callers validate first). */
export function epochDayOf(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const monthFromMarch = (month + 9) % 12;
  const dayOfYear = Math.floor((153 * monthFromMarch + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** Year, month (1-12) and day of an epoch day. */
export function civilOf(epochDay: number): { year: number; month: number; day: number } {
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

export type DayCheck = { ok: true; epochDay: number } | { ok: false; problem: 'format' | 'calendar' };

/** Whether `text` is a `YYYY-MM-DD` string naming a day that exists (2026-02-29 does not, 2028-02-29 does). */
export function checkDay(text: string): DayCheck {
  const match = DAY_PATTERN.exec(text);
  if (!match) return { ok: false, problem: 'format' };
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return { ok: false, problem: 'calendar' };
  return { ok: true, epochDay: epochDayOf(year, month, day) };
}

/** Epoch day of a valid `YYYY-MM-DD`; throws on anything else (for values already validated). */
export function parseDay(text: string): number {
  const checked = checkDay(text);
  if (!checked.ok) throw new RangeError(`${JSON.stringify(text)} is not a YYYY-MM-DD calendar date`);
  return checked.epochDay;
}

/** The UTC day an instant (epoch ms) falls on. Floor, not truncation, so instants before 1970 bucket correctly too. */
export function dayOfInstant(epochMs: number): number {
  return Math.floor(epochMs / MS_PER_DAY);
}

/** The next 00:00 UTC strictly after an instant: when a UTC-day quota starts over. */
export function nextUtcMidnight(epochMs: number): number {
  return (dayOfInstant(epochMs) + 1) * MS_PER_DAY;
}

/** First millisecond of an epoch day (inclusive lower bound of its bucket). */
export function startOfDayMs(epochDay: number): number {
  return epochDay * MS_PER_DAY;
}

/** Group ascending epoch days into runs of consecutive days, as `[first, last]` pairs. */
export function consecutiveRuns(days: readonly number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const day of days) {
    const last = runs.at(-1);
    if (last && day === last[1] + 1) last[1] = day;
    else runs.push([day, day]);
  }
  return runs;
}

/** Day of the week of an epoch day, 0 = Sunday to 6 = Saturday (1970-01-01, epoch day 0, was a Thursday). */
export function weekdayOf(epochDay: number): number {
  return (((epochDay + 4) % 7) + 7) % 7;
}

const WEEKDAY_NAMES = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;

/** English weekday abbreviation of a `YYYY-MM-DD` day ("Thu"), or "" when it is not a calendar date. */
export function weekdayName(text: string): string {
  const checked = checkDay(text);
  return checked.ok ? WEEKDAY_NAMES[weekdayOf(checked.epochDay)]! : '';
}

const LONG_DATE = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });

/**
 * A date (`2026-01-05`) or date-time (`2026-01-05T09:30:00Z`) as "5 January 2026", in English and
 * UTC so neither the build machine's zone nor the server's locale changes what readers see.
 * (A date-only ISO string is read as UTC midnight by ECMAScript's Date parsing.)
 */
export function formatDate(value: string): string {
  return LONG_DATE.format(new Date(value));
}
