/**
 * The /stats page's one request: a range's records from the public data API, or the sentence
 * the page shows instead. Network failures and aborts are thrown for the caller to tell apart.
 */
import type { Shown } from './chart-options.ts';
import type { DataRecord } from './data-record.ts';
import { isRecordList } from './stats-state.ts';
import { type DayRange, dataApiUrl, invalidFields, waitMessage } from './stats-page.ts';

export type RangeAnswer =
  | { ok: true; shown: Shown }
  | { ok: false; message: string; fields?: ReadonlyArray<'startDate' | 'endDate'> };

export async function fetchRange(range: DayRange, signal: AbortSignal): Promise<RangeAnswer> {
  const response = await fetch(dataApiUrl(range), { headers: { accept: 'application/json' }, signal });
  if (response.status === 429) return { ok: false, message: waitMessage(response.headers.get('retry-after'), Date.now()) };
  const body: unknown = await response.json().catch(() => undefined);
  if (response.ok && body && typeof body === 'object' && isRecordList((body as { data?: unknown }).data)) {
    return { ok: true, shown: { range, records: (body as { data: DataRecord[] }).data } };
  }
  const message = body && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
  if (response.status === 400 && typeof message === 'string') {
    // The data API's own SVC1005 message, as the server-rendered page shows it.
    return { ok: false, message: `Invalid range: ${message}`, fields: invalidFields(message) };
  }
  return { ok: false, message: `The statistics could not be loaded (HTTP ${response.status}). Please try again in a minute.` };
}
