import { parse } from 'csv-parse/sync';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import type { ContactSubmissionRow } from '../../../../src/db/schema.ts';
import { CSV_COLUMNS, csvRecord, csvStringifyOptions } from '../../../../src/features/contact/contact-csv.ts';
import type { DeliverySummary } from '../../../../src/features/contact/deliveries.server.ts';
import { sinceMs } from '../../../../jobs/cli/contact-export.ts';

const row: ContactSubmissionRow = {
  id: 3,
  created_at: Date.UTC(2025, 2, 4, 5, 6, 7, 8),
  name: 'Ada',
  job_title: null,
  work_email: 'ada@example.com',
  priority: 'standard',
  message: null,
  idempotency_key: 'secret-ish',
  delivery_status: 'dispatched',
  delivery_attempts: 0,
  next_attempt_at: null,
  delivered_at: null,
  last_error: null,
  spam_reason: null,
};
const delivered: DeliverySummary = { status: 'delivered', deliveredAt: Date.UTC(2025, 2, 4, 5, 7) };

const toCsv = (...rows: ContactSubmissionRow[]) => stringify(rows.map((r) => csvRecord(r, delivered)), csvStringifyOptions());

describe('contact CSV', () => {
  it('writes a header, RFC 3339 times, empty cells for missing values and CRLF line ends', () => {
    expect(toCsv(row)).toBe(
      'id,submitted_at,name,job_title,work_email,priority,message,delivery_status,delivered_at,spam_reason\r\n' +
        '3,2025-03-04T05:06:07.008Z,Ada,,ada@example.com,standard,,delivered,2025-03-04T05:07:00.000Z,\r\n',
    );
  });

  it('gives the reason of a spam submission', () => {
    const [back] = parse(stringify([csvRecord({ ...row, spam_reason: 'honeypot' }, { status: 'none', deliveredAt: null })], csvStringifyOptions()), { columns: true }) as Array<Record<string, string>>;
    expect(back).toMatchObject({ delivery_status: 'none', delivered_at: '', spam_reason: 'honeypot' });
  });

  it('leaves out internal bookkeeping such as the idempotency key', () => {
    expect(CSV_COLUMNS).not.toContain('idempotency_key');
    expect(toCsv(row)).not.toContain('secret-ish');
  });

  it('quotes commas, quotes and line breaks so they read back unchanged', () => {
    const message = 'a,b "c"\nd\re\r\nf';
    const csv = toCsv({ ...row, name: 'Doe, Jane', message });
    expect(csv).toContain('"Doe, Jane"');
    expect(csv).toContain('"a,b ""c""\nd\re\r\nf"');
    const [back] = parse(csv, { columns: true }) as Array<Record<string, string>>;
    expect(back).toMatchObject({ name: 'Doe, Jane', message });
  });

  it.each(['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx'])('turns a cell starting like a formula (%j) into text', (text) => {
    const [back] = parse(toCsv({ ...row, message: text }), { columns: true }) as Array<Record<string, string>>;
    expect(back!['message']).toBe(`'${text}`);
  });

  it('can start with a byte order mark for Excel', () => {
    expect(stringify([csvRecord(row, delivered)], csvStringifyOptions({ bom: true })).startsWith('\uFEFFid,')).toBe(true);
  });
});

describe('--since day', () => {
  it('is the UTC midnight of a real calendar day', () => {
    expect(sinceMs('2025-02-01')).toBe(Date.UTC(2025, 1, 1));
    expect(sinceMs('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
  });

  it.each(['2025-02-29', '2025-13-01', '2025-1-1', '01/02/2025', '2025-02-01T00:00Z', ''])('refuses %j', (text) => {
    expect(sinceMs(text)).toBeUndefined();
  });
});
