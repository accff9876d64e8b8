/**
 * Streams raw events from NDJSON or CSV into the `event` table: constant memory, batched
 * transactions, bad lines reported (line number, reason) without stopping, and re-runs that
 * change nothing (`ON CONFLICT (id) DO NOTHING`). The CLI (jobs/cli/events-import.ts) adds the
 * progress bar; tests call this with real databases.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import type { Kysely } from 'kysely';
import type { Database, NewEvent } from '../../db/schema.ts';
import { type EventParse, parseEventRecord, parseNdjsonLine } from './event-record.ts';
import { insertEvents } from './stats.server.ts';
import type { Meter } from '../../lib/meter.ts';

export type EventFileFormat = 'ndjson' | 'csv';

/** Format by extension (.ndjson, .jsonl, .json, .csv), else by the first non-blank character: `{` is NDJSON. */
export function formatFor(path: string, head: string): EventFileFormat {
  const extension = extname(path).toLowerCase();
  if (extension === '.csv') return 'csv';
  if (extension === '.ndjson' || extension === '.jsonl' || extension === '.json') return 'ndjson';
  return head.replace(/^\uFEFF/, '').trimStart().startsWith('{') ? 'ndjson' : 'csv';
}

export interface BadLine {
  /** 1-based line number in the file (for CSV, the line where the record ends). */
  line: number;
  reason: string;
}

export interface ImportResult {
  /** Records read (valid or not), blank lines and the CSV header excluded. */
  records: number;
  /** Records that passed validation. */
  valid: number;
  /** Valid records that were new. */
  inserted: number;
  /** Valid records whose id was already stored (or repeated in the file). */
  duplicates: number;
  /** Records refused. */
  bad: number;
  /** The first `maxBadLinesKept` refused records. */
  badLines: BadLine[];
  /** Earliest and latest occurred_at (epoch ms) of the valid records: the days to re-materialize. */
  span?: { first: number; last: number };
  /** Set when the import stopped early (unreadable file, database failure); batches committed before it stay. */
  error?: Error;
}

export interface ImportOptions {
  /** Valid events per transaction. */
  batchSize?: number;
  /** How many bad lines to keep in the result (all are counted and passed to onBadLine). */
  maxBadLinesKept?: number;
  onBadLine?: (bad: BadLine) => void;
  /** Characters of input consumed so far, after each committed batch. */
  onProgress?: (consumed: number) => void;
  /** stats_events_imported_total, counted per committed batch; none when absent. */
  meter?: Meter;
}

interface ParsedRecord {
  line: number;
  result: EventParse;
  /** Input consumed up to and including this record. */
  consumed: number;
}

const REQUIRED_COLUMNS = ['id', 'occurred_at', 'kind'] as const;

async function* ndjsonRecords(input: Readable): AsyncGenerator<ParsedRecord> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  let consumed = 0;
  for await (const text of lines) {
    line += 1;
    consumed += text.length + 1;
    const result = parseNdjsonLine(line === 1 ? text.replace(/^\uFEFF/, '') : text);
    if (result) yield { line, result, consumed };
  }
}

async function* csvRecords(input: Readable): AsyncGenerator<ParsedRecord> {
  // csv-parse skips a malformed record (unbalanced quote, ...) and tells us through on_skip;
  // those wait here until the next record is yielded, so they are reported in file order.
  const skipped: ParsedRecord[] = [];
  const parser = parseCsv({
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    skip_records_with_error: true,
    info: true,
    columns: (header: string[]) => {
      const names = header.map((name) => name.trim().toLowerCase());
      const missing = REQUIRED_COLUMNS.filter((name) => !names.includes(name));
      if (missing.length > 0) {
        throw new Error(`the CSV header must name the columns id, occurred_at, kind and revenue; missing ${missing.join(', ')} (header: ${header.join(',').slice(0, 120)})`);
      }
      return names;
    },
    on_skip: (error) => {
      const line = typeof error?.['lines'] === 'number' ? error['lines'] : 0;
      skipped.push({ line, result: { ok: false, reason: `unreadable CSV (${error?.message ?? 'parse error'})` }, consumed: 0 });
      return undefined;
    },
  });
  input.on('error', (error) => parser.destroy(error));
  input.pipe(parser);
  for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
    for (const skip of skipped.splice(0)) yield { ...skip, consumed: parser.info.bytes };
    yield { line: info.lines, result: parseEventRecord(record), consumed: parser.info.bytes };
  }
  for (const skip of skipped.splice(0)) yield { ...skip, consumed: parser.info.bytes };
}

/** Import events from a stream of the given format. Never throws: failures come back as `error`. */
export async function importEvents(db: Kysely<Database>, input: Readable, format: EventFileFormat, options: ImportOptions = {}): Promise<ImportResult> {
  const batchSize = options.batchSize ?? 5_000;
  const maxKept = options.maxBadLinesKept ?? 1_000;
  const result: ImportResult = { records: 0, valid: 0, inserted: 0, duplicates: 0, bad: 0, badLines: [] };
  let batch: NewEvent[] = [];
  let consumed = 0;

  const flush = async () => {
    if (batch.length === 0) return;
    const events = batch;
    batch = [];
    const inserted = await db.transaction().execute((trx) => insertEvents(trx, events));
    result.inserted += inserted;
    result.duplicates += events.length - inserted;
    options.meter?.count('stats_events_imported_total', undefined, inserted);
    options.onProgress?.(consumed);
  };

  try {
    for await (const record of format === 'csv' ? csvRecords(input) : ndjsonRecords(input)) {
      result.records += 1;
      consumed = Math.max(consumed, record.consumed);
      if (record.result.ok) {
        result.valid += 1;
        const at = record.result.event.occurred_at;
        result.span = result.span ? { first: Math.min(result.span.first, at), last: Math.max(result.span.last, at) } : { first: at, last: at };
        batch.push(record.result.event);
        if (batch.length >= batchSize) await flush();
      } else {
        result.bad += 1;
        const bad = { line: record.line, reason: record.result.reason };
        if (result.badLines.length < maxKept) result.badLines.push(bad);
        options.onBadLine?.(bad);
      }
    }
    await flush();
  } catch (error) {
    result.error = error instanceof Error ? error : new Error(String(error));
    input.destroy();
  }
  return result;
}

/** Import a file, choosing the format by extension or by sniffing its first bytes. */
export async function importEventsFile(
  db: Kysely<Database>,
  path: string,
  options: ImportOptions & { format?: EventFileFormat } = {},
): Promise<ImportResult & { format?: EventFileFormat }> {
  let format: EventFileFormat;
  try {
    const file = await open(path, 'r');
    try {
      const { buffer, bytesRead } = await file.read({ buffer: Buffer.alloc(64), position: 0 });
      format = options.format ?? formatFor(path, buffer.subarray(0, bytesRead).toString('utf8'));
    } finally {
      await file.close();
    }
  } catch (error) {
    return { records: 0, valid: 0, inserted: 0, duplicates: 0, bad: 0, badLines: [], error: error as Error };
  }
  const result = await importEvents(db, createReadStream(path), format, options);
  return { ...result, format };
}
