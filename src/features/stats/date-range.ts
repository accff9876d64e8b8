/**
 * The query of Get Data (`PATHS.data`, docs/interface.md sections 3 and 5): `startDate` and
 * `endDate`, both required (the spec's prose says so; its parameter table is looser), both
 * `YYYY-MM-DD` naming real calendar days, `endDate` not before `startDate`, and at most 31 days
 * counting both ends. Any violation is a 400 `SVC1005` whose message names the rule that failed.
 */
import { z } from 'zod';
import { HttpError } from '../../lib/http-error.ts';
import { shown } from '../../lib/query-params.ts';
import { DAY_PATTERN, checkDay, formatDay, parseDay } from '../../lib/calendar.ts';

/** Longest range one request may ask for, both ends included (docs/interface.md section 6). */
export const MAX_RANGE_DAYS = 31;


function dayParameter(name: 'startDate' | 'endDate', role: string) {
  return z
    .string({
      error: (issue) =>
        issue.input === undefined
          ? `${name} is required: give the ${role} day of the range as YYYY-MM-DD`
          : Array.isArray(issue.input)
            ? `${name} was given ${issue.input.length} times: give it once`
            : `${name} must be a single YYYY-MM-DD value`,
    })
    .regex(DAY_PATTERN, { error: (issue) => `${name} must be a date in YYYY-MM-DD format, got ${shown(issue.input)}` })
    // Only judged once the shape is right, so a malformed value gets one message, not two.
    .refine((value) => !DAY_PATTERN.test(value) || checkDay(value).ok, {
      error: (issue) => `${name} ${shown(issue.input)} is not a calendar date`,
    })
    .describe(`The ${role} day of the range (UTC), YYYY-MM-DD, included.`)
    // For the OpenAPI document: RFC 3339 full-date, the format the pattern above enforces.
    .meta({ format: 'date', examples: [name === 'startDate' ? '2026-07-01' : '2026-07-31'] });
}

/**
 * Query parameters of Get Data. Cross-field rules (order, span) are checked by `parseDateRange`.
 * Strict: a parameter the spec does not define is refused rather than ignored, so one response
 * has one spelling (and one cache entry), and a typo such as `startdate` is reported, not
 * answered as if it were absent.
 */
export const DataQuery = z.strictObject({
  /** First day of the range (UTC), YYYY-MM-DD, included. */
  startDate: dayParameter('startDate', 'first'),
  /** Last day of the range (UTC), YYYY-MM-DD, included; not before startDate, at most 30 days after it. */
  endDate: dayParameter('endDate', 'last'),
});
export type DataQuery = z.infer<typeof DataQuery>;

/**
 * The parameters Get Data reads, in cache-key order: the schema's own keys, so the route table
 * (which refuses any other at the edge and keys the response cache by these) and the schema
 * cannot disagree.
 */
export const DATE_RANGE_PARAMETERS: readonly string[] = Object.keys(DataQuery.shape);

/** A validated range. */
export interface DateRange {
  /** First day, YYYY-MM-DD. */
  startDate: string;
  /** Last day, YYYY-MM-DD. */
  endDate: string;
  /** First day as days since 1970-01-01. */
  start: number;
  /** Last day as days since 1970-01-01. */
  end: number;
  /** Number of days in the range, both ends included (1 to 31). */
  days: number;
}

/**
 * The two parameters as a plain object; one given more than once becomes an array so the schema
 * can refuse it. Any other parameter is not read: the route refuses it before the endpoint runs
 * (the route table's strict query, judged once), and the stats page ignores it.
 */
function queryObject(params: URLSearchParams): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const key of DATE_RANGE_PARAMETERS) {
    const values = params.getAll(key);
    if (values.length > 0) result[key] = values.length === 1 ? values[0]! : values;
  }
  return result;
}

function invalid(detail: string): HttpError {
  return new HttpError('SVC1005', {
    detail,
    resolution: `Send startDate and endDate as YYYY-MM-DD, endDate not before startDate, at most ${MAX_RANGE_DAYS} days apart counting both.`,
  });
}

/**
 * Validate the query of a data request. Throws `HttpError('SVC1005')` naming the first rule that failed; when both dates
 * are malformed, both are named.
 */
export function parseDateRange(params: URLSearchParams): DateRange {
  const quick = validPair(params);
  if (quick) return quick;
  const parsed = DataQuery.safeParse(queryObject(params));
  if (!parsed.success) {
    const order = ['startDate', 'endDate'];
    const messages = [...parsed.error.issues]
      .sort((a, b) => order.indexOf(String(a.path[0])) - order.indexOf(String(b.path[0])))
      .map((issue) => issue.message);
    throw invalid(messages.join('; '));
  }
  // Both passed checkDay inside the schema, so parseDay cannot throw here.
  const { startDate, endDate } = parsed.data;
  return rangeOf(startDate, endDate, parseDay(startDate), parseDay(endDate));
}

/**
 * Both dates given once and each a calendar date: exactly what the schema accepts, judged without
 * it (the data API's cache miss paid several microseconds for zod's parse of two strings). Anything
 * else goes through the schema, whose messages name what is wrong.
 */
function validPair(params: URLSearchParams): DateRange | undefined {
  const starts = params.getAll('startDate');
  const ends = params.getAll('endDate');
  if (starts.length !== 1 || ends.length !== 1) return undefined;
  const start = checkDay(starts[0]!);
  const end = checkDay(ends[0]!);
  return start.ok && end.ok ? rangeOf(starts[0]!, ends[0]!, start.epochDay, end.epochDay) : undefined;
}

/** The order and span rules of two calendar dates (and their epoch days), and the range they name. */
function rangeOf(startDate: string, endDate: string, start: number, end: number): DateRange {
  if (end < start) throw invalid(`endDate ${endDate} is before startDate ${startDate}`);
  const days = end - start + 1;
  if (days > MAX_RANGE_DAYS) {
    throw invalid(
      `the range ${startDate} to ${endDate} covers ${days} days; at most ${MAX_RANGE_DAYS} are allowed (endDate at the latest ${formatDay(start + MAX_RANGE_DAYS - 1)})`,
    );
  }
  return { startDate, endDate, start, end, days };
}
