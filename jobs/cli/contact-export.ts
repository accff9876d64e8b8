/**
 * `npm run contact:export -- [--since YYYY-MM-DD] [--bom]`: every contact submission as CSV on
 * stdout, for the team that answers them. Columns and quoting: src/features/contact/contact-csv.ts.
 * Reads DATABASE_URL like the server (brings the schema up to date first, so a fresh database
 * exports just the header). Exit codes: 0 done, 1 failed, 64 bad arguments, 78 bad configuration
 * (sysexits.h).
 */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../../src/app/config.ts';
import { createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import { writeSubmissionsCsv } from '../../src/features/contact/contact.server.ts';
import { checkDay, startOfDayMs } from '../../src/lib/calendar.ts';

const USAGE = 'usage: npm run contact:export -- [--since YYYY-MM-DD] [--bom] > contacts.csv';

/** `--since`: a real calendar day, YYYY-MM-DD, to the epoch ms of its UTC midnight; undefined otherwise. */
export function sinceMs(text: string): number | undefined {
  const checked = checkDay(text);
  return checked.ok ? startOfDayMs(checked.epochDay) : undefined;
}

async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({ args: argv, options: { since: { type: 'string' }, bom: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } } });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${USAGE}\n`);
    return 64;
  }
  if (args.values.help) {
    process.stdout.write(`${USAGE}\n  --since  only submissions made on or after that UTC day\n  --bom    start with a UTF-8 byte order mark (for Excel)\n`);
    return 0;
  }
  let since: number | undefined;
  if (args.values.since !== undefined) {
    since = sinceMs(args.values.since);
    if (since === undefined) {
      process.stderr.write(`--since must be a calendar day written YYYY-MM-DD, e.g. 2025-01-31 (got "${args.values.since}")\n${USAGE}\n`);
      return 64;
    }
  }

  let config;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      return 78;
    }
    throw error;
  }
  const handle = createDb(config.DATABASE_URL, { sqliteSynchronous: config.SQLITE_SYNCHRONOUS });
  try {
    const migration = await migrateToLatest(handle.db, handle.engine);
    if (migration.error) throw migration.error;
    const { rows } = await writeSubmissionsCsv(handle, process.stdout, { since, bom: args.values.bom ?? false });
    process.stderr.write(`${rows} submission${rows === 1 ? '' : 's'} exported from ${handle.target}\n`);
    return 0;
  } catch (error) {
    // The reader went away (`| head`): what was wanted has been written.
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0;
    process.stderr.write(`export failed: ${(error as Error).message}\n`);
    return 1;
  } finally {
    await handle.close();
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
