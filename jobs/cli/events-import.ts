/**
 * Import raw events from an NDJSON or CSV file into the database named by DATABASE_URL.
 *
 *   npm run events:import -- FILE [--format ndjson|csv]
 *
 * Each record: id, occurred_at (ISO-8601 instant with offset, or epoch ms), kind (transaction |
 * impression), revenue (decimal in currency units, at most two decimals; empty for impressions).
 * The format follows the extension (.ndjson/.jsonl/.json, .csv) or the first character. Bad
 * lines are listed (line number, reason) and skipped; re-running the same file inserts nothing
 * new. Exits 0 when every record was stored (or was already), 65 (EX_DATAERR) when the file was
 * read to the end but some records were refused, 66 (EX_NOINPUT) when FILE cannot be read; when it
 * stopped early (batches committed before the failure stay; re-running resumes safely) 69, 75 or
 * 70 as run-cli.ts classifies the cause.
 */
import { stat } from 'node:fs/promises';
import { dayOfInstant, formatDay } from '../../src/lib/calendar.ts';
import { importEventsFile } from '../../src/features/stats/event-import.server.ts';
import { progress } from './progress-bar.ts';
import { EX_DATAERR, EX_NOINPUT } from '../../src/app/exit-codes.ts';
import { CommandFailed, runCli, UsageError } from './run-cli.ts';

/** Bad lines printed in full; the rest are counted. */
const SHOW_BAD_LINES = 50;
export const EXIT_REFUSED = EX_DATAERR;

const USAGE = {
  synopsis: 'events-import FILE [--format ndjson|csv]',
  options: { format: { type: 'string' } },
  positionals: true,
} as const;

/**
 * What to run after an import whose events fall between the instants `span.first` and
 * `span.last`. The suggested range holds only days stats:materialize accepts: from the first
 * event's day (it refuses days before the first event) to yesterday at the latest (it refuses
 * today and later, whose events may still arrive and would be served as final part-days).
 */
export function materializeAdvice(span: { first: number; last: number }, nowMs: number): string {
  const from = formatDay(dayOfInstant(span.first));
  const to = formatDay(dayOfInstant(span.last));
  const today = dayOfInstant(nowMs);
  const events = `Events fall on ${from} to ${to} (UTC).`;
  if (dayOfInstant(span.first) >= today) return `${events} None of these days is complete yet: the nightly job materializes each once it is over.\n`;
  const lastComplete = formatDay(Math.min(dayOfInstant(span.last), today - 1));
  const nightly =
    lastComplete === to
      ? 'The nightly job re-materializes only the last three complete days; for older days run:'
      : `Days from today (${formatDay(today)}) on are materialized by the nightly job once complete; it re-materializes only the last three complete days, so for older days run:`;
  return `${events} ${nightly}\n  npm run stats:materialize -- --from ${from} --to ${lastComplete}\n`;
}

if (import.meta.main) {
  process.exitCode = await runCli('events-import', USAGE, async ({ values, positionals, db, stdout, stderr }) => {
    if (positionals.length !== 1) throw new UsageError('give exactly one FILE');
    const { format } = values;
    if (format !== undefined && format !== 'ndjson' && format !== 'csv') throw new UsageError('--format must be ndjson or csv');
    const file = positionals[0]!;
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (error) {
      stderr.write(`events-import: cannot read ${file}: ${(error as Error).message}\n`);
      return EX_NOINPUT;
    }
    const handle = await db({ statementTimeoutMs: 60_000 });
    const bar = progress(size, 'importing', { unit: 'bytes', stream: stderr });
    bar.update(0);
    const result = await importEventsFile(handle.kysely, file, {
      ...(format === undefined ? {} : { format }),
      maxBadLinesKept: SHOW_BAD_LINES,
      onProgress: (consumed) => bar.update(Math.min(consumed, size)),
    });
    if (!result.error) bar.update(size);
    bar.stop();
    for (const bad of result.badLines) stderr.write(`line ${bad.line}: ${bad.reason}\n`);
    if (result.bad > result.badLines.length) stderr.write(`... and ${result.bad - result.badLines.length} more bad lines\n`);
    const summary = `${result.records} records from ${file}${result.format ? ` (${result.format})` : ''}: ${result.inserted} inserted, ${result.duplicates} already present, ${result.bad} refused.`;
    if (result.error) {
      stderr.write(`${summary}\n`);
      throw new CommandFailed('stopped early', { cause: result.error });
    }
    stdout.write(`${summary}\n`);
    if (result.inserted > 0 && result.span) stdout.write(materializeAdvice(result.span, Date.now()));
    return result.bad > 0 ? EXIT_REFUSED : 0;
  });
}
