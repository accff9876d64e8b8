/**
 * The exit status of each way a backup command can fail (sysexits.h, as src/app/exit-codes.ts
 * classifies the rest): shared by backup, backup:verify and restore.
 */
import { EX_CANTCREAT, EX_DATAERR, EX_NOINPUT, EX_TEMPFAIL, EX_UNAVAILABLE } from '../../src/app/exit-codes.ts';
import { BackupError, type BackupFailure } from '../../src/features/backup/backup.server.ts';

const EXIT: Record<BackupFailure, number> = {
  exists: EX_CANTCREAT, // 73: the output exists, or the target database is not empty
  'no-input': EX_NOINPUT, // 66: no such backup, or nothing to back up
  damaged: EX_DATAERR, // 65
  newer: EX_DATAERR,
  mismatch: EX_DATAERR,
  unavailable: EX_UNAVAILABLE, // 69: pg_dump/pg_restore missing or too old
  busy: EX_TEMPFAIL, // 75: a server holds the database; stop it and run again
};

/** Run `work`; a BackupError becomes one line on stderr and its exit status, anything else goes on to run-cli. */
export async function withBackupErrors(name: string, stderr: NodeJS.WritableStream, work: () => Promise<number>): Promise<number> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof BackupError)) throw error;
    stderr.write(`${name}: ${error.message}\n`);
    return EXIT[error.kind];
  }
}
