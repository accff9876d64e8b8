/**
 * What the /stats page script holds, pure: which records it shows (checked, since they come from
 * the network or from the page) and which data request is the current one.
 */
import type { Shown } from './chart-options.ts';
import type { DataRecord } from './data-record.ts';
import type { DayRange } from './stats-page.ts';

export function isRecordList(value: unknown): value is DataRecord[] {
  return (
    Array.isArray(value) &&
    value.every(
      (r: unknown) =>
        typeof r === 'object' &&
        r !== null &&
        typeof (r as DataRecord).date === 'string' &&
        typeof (r as DataRecord).txn_count === 'number' &&
        typeof (r as DataRecord).impr_count === 'number' &&
        typeof (r as DataRecord).service_revenue === 'number',
    )
  );
}

/**
 * The records the server embedded in the page (`#stats-initial`, the API's shape), so the first
 * charts cost no request; undefined when the block is missing or broken (the page then stays as
 * rendered: table and totals are still there).
 */
export function initialShown(text: string | null | undefined): Shown | undefined {
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as { range?: DayRange; records?: unknown };
    return parsed.range && isRecordList(parsed.records) ? { range: parsed.range, records: parsed.records } : undefined;
  } catch {
    return undefined;
  }
}

/** One request at a time: starting one aborts the one before, so only the newest range is shown. */
export function latestOnly() {
  let current: AbortController | undefined;
  return {
    start(): AbortController {
      current?.abort();
      current = new AbortController();
      return current;
    },
    finish(controller: AbortController): void {
      if (current === controller) current = undefined;
    },
  };
}
