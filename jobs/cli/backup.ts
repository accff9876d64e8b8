/**
 * `npm run -s backup -- --out FILE`: a consistent backup of DATABASE_URL while the server runs and
 * writes (SQLite: the online backup API, in a worker thread; PostgreSQL: pg_dump -Fc, its version
 * checked against the server's), and its manifest FILE.manifest.json beside it. Prints one line.
 * Exit codes: run-cli.ts, and 73 (FILE exists or its directory does not), 66 (no database file),
 * 69 (pg_dump missing or older than the server).
 */
import { takeBackup } from '../../src/features/backup/backup.server.ts';
import { withBackupErrors } from './backup-failure.ts';
import { runCli, UsageError } from './run-cli.ts';

const USAGE = {
  synopsis: 'npm run -s backup -- --out FILE',
  options: { out: { type: 'string' } },
  details: ['  --out  the backup file to write (never overwritten); its manifest goes to FILE.manifest.json'].join('\n'),
} as const;

if (import.meta.main) {
  process.exitCode = await runCli('backup', USAGE, ({ values, config, stdout, stderr }) =>
    withBackupErrors('backup', stderr, async () => {
      const out = values.out?.trim();
      if (out === undefined || out === '') throw new UsageError('--out is required');
      const manifest = await takeBackup(config().DATABASE_URL, out);
      const rows = Object.values(manifest.tables).reduce((a, b) => a + b, 0);
      stdout.write(`backed up ${manifest.engine} (schema at ${manifest.migrations.at(-1) ?? 'none'}, ${rows} rows in ${Object.keys(manifest.tables).length} tables) to ${out}, ${manifest.bytes} bytes, sha256 ${manifest.sha256}\n`);
      return 0;
    }),
  );
}
