/**
 * The CSV the answering team opens (`npm run contact:export`): one row per submission, RFC 4180
 * quoting by csv-stringify (a field holding a comma, quote or line break is quoted, inner quotes
 * doubled), times in RFC 3339 UTC.
 *
 * Formula injection (OWASP "CSV Injection"): a spreadsheet runs a cell that starts with `=`, `+`,
 * `-`, `@`, tab or carriage return as a formula, and every text cell here was typed by a
 * stranger. csv-stringify's `escape_formulas` prefixes such cells with `'`, which spreadsheets
 * show as text; the cost is a visible `'` in front of, say, a message starting with "-".
 */
import type { Options } from 'csv-stringify';
import type { ContactSubmissionRow } from '../../db/schema.ts';
import type { DeliverySummary } from './delivery-channel.ts';

/** Header row, in order. */
export const CSV_COLUMNS = [
  'id',
  'submitted_at',
  'name',
  'job_title',
  'work_email',
  'priority',
  'message',
  'delivery_status',
  'delivered_at',
  'spam_reason',
] as const;

export type CsvRecord = Record<(typeof CSV_COLUMNS)[number], string | number>;

const iso = (ms: number | null): string => (ms === null ? '' : new Date(ms).toISOString());

/** `delivery`: the state of its deliveries, all channels together (deliveries.server.ts). */
export function csvRecord(row: ContactSubmissionRow, delivery: DeliverySummary): CsvRecord {
  return {
    id: row.id,
    submitted_at: iso(row.created_at),
    name: row.name,
    job_title: row.job_title ?? '',
    work_email: row.work_email,
    priority: row.priority,
    message: row.message ?? '',
    delivery_status: delivery.status,
    delivered_at: iso(delivery.deliveredAt),
    spam_reason: row.spam_reason ?? '',
  };
}

export interface CsvOptions {
  /** Start with a UTF-8 byte order mark, which Excel needs to read non-ASCII names correctly. */
  bom?: boolean;
}

export function csvStringifyOptions({ bom = false }: CsvOptions = {}): Options {
  return {
    header: true,
    columns: [...CSV_COLUMNS],
    escape_formulas: true,
    bom,
    // RFC 4180 section 2 line ends; spreadsheets read either, CRLF is the standard's.
    record_delimiter: 'windows',
    // Setting record_delimiter turns this off by default; a message's own \n or \r must stay quoted.
    quote_record_delimiter: true,
  };
}
