/**
 * `npm run contact:erase -- --email ada@example.com`: delete one person's contact submissions,
 * and with them their deliveries still pending (GDPR art. 17, the right to erasure), and
 * say how many. The address is matched case-insensitively (Ada@Example.com finds
 * ada@example.com). Reads DATABASE_URL like the server. Before deleting anything it records the
 * erasure in the erasure ledger (src/features/contact/erasure-ledger.server.ts), so that restoring
 * an older backup erases the person again; if the ledger cannot be written, nothing is erased
 * (exit 73). Exit codes: run-cli.ts (64 without --email or with something that is not an address).
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { EX_CANTCREAT } from '../../src/app/exit-codes.ts';
import { appendErasure, DEFAULT_POSTGRES_LEDGER, erasureLedgerPath } from '../../src/features/contact/erasure-ledger.server.ts';
import { eraseSubmissionsByEmail } from '../../src/features/contact/retention.server.ts';
import { CommandFailed, runCli, UsageError } from './run-cli.ts';

const USAGE = {
  synopsis: 'npm run contact:erase -- --email ADDRESS',
  options: { email: { type: 'string' } },
  details: [
    '  --email  delete every contact submission from this address (matched case-insensitively),',
    '           pending deliveries included, and print how many',
  ].join('\n'),
} as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

if (import.meta.main) {
  process.exitCode = await runCli('contact-erase', USAGE, async ({ values, db, config, stdout, stderr }) => {
    const email = values.email?.trim();
    if (email === undefined || email === '') throw new UsageError('--email is required');
    // A loose shape check: anything stored passed the form's stricter one, so this only catches slips.
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError(`--email must be an email address such as ada@example.com (got ${JSON.stringify(email)})`);
    const handle = await db();
    const { DATABASE_URL, ERASURE_LEDGER } = config();
    const ledger = erasureLedgerPath(DATABASE_URL, ERASURE_LEDGER);
    if (ledger !== undefined) {
      try {
        // Only the default's directory is created, as with the database's (database-location.ts).
        if (ledger === DEFAULT_POSTGRES_LEDGER) await mkdir(dirname(ledger), { recursive: true });
        await appendErasure(ledger, email, Date.now());
      } catch (error) {
        stderr.write(`contact-erase: cannot record the erasure in the ledger ${ledger} (${(error as Error).message}); nothing was erased\n`);
        return EX_CANTCREAT;
      }
    }
    const result = await eraseSubmissionsByEmail(handle, email);
    if (result.error) throw new CommandFailed(`erasure stopped after ${plural(result.submissions, 'submission')}`, { cause: result.error });
    const deliveries = plural(result.pendingDeliveries, 'pending delivery', 'pending deliveries');
    stdout.write(`erased ${plural(result.submissions, 'submission')} and ${deliveries} of ${email} (address matched case-insensitively) from ${handle.target}\n`);
    return 0;
  });
}
