/**
 * `npm run -s contact:export -- [--since YYYY-MM-DD] [--spam] [--bom]`: every contact submission
 * as CSV on stdout, for the team that answers them; spam is left out, and `--spam` lists it alone. Columns and quoting: src/features/contact/contact-csv.ts.
 * Reads DATABASE_URL like the server (brings the schema up to date first, so a fresh database
 * exports just the header). Exit codes: run-cli.ts.
 */
import { checkDay, startOfDayMs } from '../../src/lib/calendar.ts';
import { writeSubmissionsCsv } from '../../src/features/contact/contact.server.ts';
import { CommandFailed, runCli, UsageError } from './run-cli.ts';

/** `--since`: a real calendar day, YYYY-MM-DD, to the epoch ms of its UTC midnight; undefined otherwise. */
export function sinceMs(text: string): number | undefined {
  const checked = checkDay(text);
  return checked.ok ? startOfDayMs(checked.epochDay) : undefined;
}

const USAGE = {
  synopsis: 'npm run -s contact:export -- [--since YYYY-MM-DD] [--spam] [--bom] > contacts.csv',
  options: { since: { type: 'string' }, spam: { type: 'boolean' }, bom: { type: 'boolean' } },
  details: '  --since  only submissions made on or after that UTC day\n  --spam   only the submissions judged spam (left out otherwise), with the reason\n  --bom    start with a UTF-8 byte order mark (for Excel)',
} as const;

if (import.meta.main) {
  process.exitCode = await runCli('contact-export', USAGE, async ({ values, db, stderr, stdout }) => {
    let since: number | undefined;
    if (values.since !== undefined) {
      since = sinceMs(values.since);
      if (since === undefined) throw new UsageError(`--since must be a calendar day written YYYY-MM-DD, e.g. 2025-01-31 (got "${values.since}")`);
    }
    const handle = await db();
    try {
      const spam = values.spam ?? false;
      const { rows } = await writeSubmissionsCsv(handle, stdout, { since, spam, bom: values.bom ?? false });
      stderr.write(`${rows} ${spam ? 'spam ' : ''}submission${rows === 1 ? '' : 's'} exported from ${handle.target}\n`);
      return 0;
    } catch (error) {
      // The reader went away (`| head`): what was wanted has been written.
      if ((error as NodeJS.ErrnoException).code === 'EPIPE') return 0;
      throw new CommandFailed('export failed', { cause: error });
    }
  });
}
