/**
 * `npm run -s restore -- FILE [--force]`: restore a backup into DATABASE_URL after verifying it
 * (see backup-verify.ts): into a missing or empty database, or with --force over one; never while
 * another process holds it; never from a newer schema; an older one is migrated. Then the erasure
 * ledger (ERASURE_LEDGER) is replayed. Exit codes: run-cli.ts, and 65 (damaged, newer schema,
 * other engine), 66 (no such file), 69 (pg_restore missing or too old), 73 (the database is not
 * empty: --force), 75 (a server holds it: stop it first).
 */
import { prepareDatabaseLocation } from '../../src/app/database-location.ts';
import { erasureLedgerPath } from '../../src/features/contact/erasure-ledger.server.ts';
import { restoreBackup } from '../../src/features/backup/restore.server.ts';
import { withBackupErrors } from './backup-failure.ts';
import { runCli, UsageError } from './run-cli.ts';

const USAGE = {
  synopsis: 'npm run -s restore -- FILE [--force]',
  options: { force: { type: 'boolean' } },
  positionals: true,
  details: '  --force  replace a database that already holds tables (never one a server has open)',
} as const;

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

if (import.meta.main) {
  process.exitCode = await runCli('restore', USAGE, ({ values, positionals, config, stdout, stderr }) =>
    withBackupErrors('restore', stderr, async () => {
      if (positionals.length !== 1) throw new UsageError('name one backup file');
      const { DATABASE_URL, ERASURE_LEDGER } = config();
      prepareDatabaseLocation(DATABASE_URL);
      const ledger = erasureLedgerPath(DATABASE_URL, ERASURE_LEDGER);
      const result = await restoreBackup({ databaseUrl: DATABASE_URL, file: positionals[0]!, force: values.force === true, ledger });
      const migrated = result.applied.length > 0 ? `, then migrated (${result.applied.join(', ')})` : '';
      const replay = result.replay === undefined
        ? `no erasure ledger at ${ledger ?? '(none for :memory:)'}`
        : `replayed ${plural(result.replay.erasures, 'erasure')} from ${ledger}: ${plural(result.replay.submissions, 'submission')} erased again${result.replay.unreadable > 0 ? ` (${plural(result.replay.unreadable, 'unreadable line')} skipped)` : ''}`;
      stdout.write(`restored ${positionals[0]} (taken ${result.verified.manifest.takenAt}) into ${DATABASE_URL.startsWith('postgres') ? 'the PostgreSQL database' : DATABASE_URL}${migrated}; ${replay}\n`);
      return 0;
    }),
  );
}
