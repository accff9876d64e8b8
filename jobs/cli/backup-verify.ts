/**
 * `npm run -s backup:verify -- FILE`: check a backup before trusting it: size and SHA-256 against
 * its manifest, the engine's own reading (SQLite: PRAGMA integrity_check; PostgreSQL: pg_restore
 * --list), its schema version and row counts. Prints one line. Exit codes: run-cli.ts, and 65
 * (damaged, truncated, or no manifest), 66 (no such file), 69 (pg_restore missing).
 */
import { describeBackup, verifyBackup } from '../../src/features/backup/backup.server.ts';
import { withBackupErrors } from './backup-failure.ts';
import { runCli, UsageError } from './run-cli.ts';

const USAGE = { synopsis: 'npm run -s backup:verify -- FILE', options: {}, positionals: true } as const;

if (import.meta.main) {
  process.exitCode = await runCli('backup-verify', USAGE, ({ positionals, stdout, stderr }) =>
    withBackupErrors('backup-verify', stderr, async () => {
      if (positionals.length !== 1) throw new UsageError('name one backup file');
      const file = positionals[0]!;
      stdout.write(`${describeBackup(file, await verifyBackup(file))}\n`);
      return 0;
    }),
  );
}
