/**
 * Import raw events from an NDJSON or CSV file into the database named by DATABASE_URL.
 *
 *   npx node jobs/cli/events-import.ts FILE [--format ndjson|csv]
 *
 * Each record: id, occurred_at (ISO-8601 instant with offset, or epoch ms), kind (transaction |
 * impression), revenue (decimal in currency units, at most two decimals; empty for impressions).
 * The format follows the extension (.ndjson/.jsonl/.json, .csv) or the first character. Bad
 * lines are listed (line number, reason) and skipped; re-running the same file inserts nothing
 * new. Exits 0 when the file was read to the end, 1 when it could not be (batches committed
 * before the failure stay; re-running resumes safely), 2 on usage errors.
 */
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import cliProgress from 'cli-progress';
import { loadConfig } from '../../src/app/config.ts';
import { createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { dayOfInstant, formatDay } from '../../src/lib/calendar.ts';
import { type EventFileFormat, importEventsFile } from '../../src/features/stats/event-import.server.ts';

const USAGE = 'usage: events-import FILE [--format ndjson|csv]';
/** Bad lines printed in full; the rest are counted. */
const SHOW_BAD_LINES = 50;

async function main(): Promise<number> {
  let file: string;
  let format: EventFileFormat | undefined;
  try {
    const { positionals, values } = parseArgs({ allowPositionals: true, options: { format: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
    if (values.help) {
      console.log(USAGE);
      return 0;
    }
    if (positionals.length !== 1) throw new Error('give exactly one FILE');
    if (values.format !== undefined && values.format !== 'ndjson' && values.format !== 'csv') throw new Error('--format must be ndjson or csv');
    file = positionals[0]!;
    format = values.format;
  } catch (error) {
    console.error(`events-import: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }

  const config = loadConfig(process.env);
  const handle = createDb(config.DATABASE_URL, { sqliteSynchronous: config.SQLITE_SYNCHRONOUS, statementTimeoutMs: 60_000 });
  const bar = new cliProgress.SingleBar(
    { stream: process.stderr, format: 'importing [{bar}] {percentage}% | {value}/{total} bytes | eta {eta_formatted}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  );
  try {
    const migration = await migrateToLatest(handle.db, handle.engine);
    if (migration.error) {
      console.error(`events-import: migrating ${handle.target} failed: ${(migration.error as Error).message ?? String(migration.error)}`);
      return 1;
    }
    let size: number;
    try {
      size = (await stat(file)).size;
    } catch (error) {
      console.error(`events-import: cannot read ${file}: ${(error as Error).message}`);
      return 1;
    }
    bar.start(size, 0);
    const result = await importEventsFile(handle.db, file, {
      ...(format === undefined ? {} : { format }),
      maxBadLinesKept: SHOW_BAD_LINES,
      onProgress: (consumed) => bar.update(Math.min(consumed, size)),
    });
    if (!result.error) bar.update(size);
    bar.stop();
    for (const bad of result.badLines) console.error(`line ${bad.line}: ${bad.reason}`);
    if (result.bad > result.badLines.length) console.error(`... and ${result.bad - result.badLines.length} more bad lines`);
    const summary = `${result.records} records from ${file}${result.format ? ` (${result.format})` : ''}: ${result.inserted} inserted, ${result.duplicates} already present, ${result.bad} refused.`;
    if (result.error) {
      console.error(`events-import: stopped early: ${result.error.message}\n${summary}`);
      return 1;
    }
    console.log(summary);
    if (result.inserted > 0 && result.span) {
      const from = formatDay(dayOfInstant(result.span.first));
      const to = formatDay(dayOfInstant(result.span.last));
      console.log(`Events fall on ${from} to ${to} (UTC). The nightly job re-materialises only the last three complete days; for older days run:\n  npm run stats:materialize -- --from ${from} --to ${to}`);
    }
    return 0;
  } finally {
    bar.stop();
    await handle.close();
  }
}

process.exitCode = await main();
