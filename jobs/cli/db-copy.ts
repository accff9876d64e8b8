/**
 * `npm run -s db:copy -- --from ./data/site.db --to postgres://USER:PASSWORD@HOST:5432/DB [--resume]`:
 * move a SQLite site to PostgreSQL (src/db/copy.ts says how: one snapshot, nothing overwritten,
 * counts verified). Both databases are migrated to this version's schema first, as a server
 * would at start. Prints one line per table (rows in the source snapshot and in the target) and
 * exits 0 when every table matches, 65 when one does not (named), 73 for a target that already
 * holds rows without --resume; otherwise run-cli.ts's codes. The password is never printed.
 */
import { existsSync } from 'node:fs';
import { copySqliteTo, TargetNotEmpty } from '../../src/db/copy.ts';
import { engineOf, sqlitePath } from '../../src/db/database-url.ts';
import { openMigratedDb } from '../../src/db/open-migrated-db.ts';
import { CommandFailed, runCli, UsageError } from './run-cli.ts';

/** sysexits(3) EX_DATAERR: the copy is there but its counts differ. EX_CANTCREAT: the target is not fit to write into. */
const EX_DATAERR = 65;
const EX_CANTCREAT = 73;

const USAGE = {
  synopsis: 'npm run -s db:copy -- --from ./data/site.db --to postgres://USER:PASSWORD@HOST:5432/DB [--resume]',
  options: { from: { type: 'string' }, to: { type: 'string' }, resume: { type: 'boolean' } },
  details: [
    '  --from    the SQLite database file (the site may keep running: one consistent snapshot is copied)',
    '  --to      the PostgreSQL database (created by the operator, empty; migrated here)',
    '  --resume  finish an interrupted copy: rows already there are kept, the rest added',
  ].join('\n'),
} as const;

if (import.meta.main) {
  process.exitCode = await runCli('db-copy', USAGE, async ({ values, stdout, stderr }) => {
    const { from, to } = values;
    if (from === undefined || to === undefined) throw new UsageError('give both --from (the SQLite file) and --to (the PostgreSQL URL)');
    if (engineOf(from) !== 'sqlite' || !existsSync(sqlitePath(from))) throw new UsageError(`--from must be an existing SQLite database file, got ${JSON.stringify(from)}`);
    if (engineOf(to) !== 'postgres') throw new UsageError('--to must be a postgres:// or postgresql:// URL');
    const source = await openMigratedDb({ DATABASE_URL: from }).catch((error: unknown) => {
      throw new CommandFailed(`opening ${from} failed`, { cause: error });
    });
    await source.close();
    const target = await openMigratedDb({ DATABASE_URL: to }, { statementTimeoutMs: 120_000 }).catch((error: unknown) => {
      throw new CommandFailed('opening the target failed', { cause: error });
    });
    try {
      let lastReport = 0;
      const tables = await copySqliteTo(sqlitePath(from), target.kysely, {
        resume: values.resume ?? false,
        onProgress: (table, done, total) => {
          if (performance.now() - lastReport < 1_000 && done < total) return;
          lastReport = performance.now();
          stderr.write(`db-copy: ${table}: ${done.toLocaleString('en')} of ${total.toLocaleString('en')} rows\n`);
        },
      });
      for (const { table, source: rows, target: copied } of tables) stdout.write(`${table}: ${rows} rows in the source, ${copied} in the target${rows === copied ? '' : '  <- differs'}\n`);
      const differing = tables.filter((t) => t.source !== t.target).map((t) => t.table);
      if (differing.length > 0) {
        stderr.write(`db-copy: counts differ in ${differing.join(', ')}: the target held rows of its own (a resumed copy into a used database?)\n`);
        return EX_DATAERR;
      }
      stdout.write(`copied ${from} into ${target.target}: every table's count matches\n`);
      return 0;
    } catch (error) {
      if (error instanceof TargetNotEmpty) {
        stderr.write(`db-copy: ${error.message}\n`);
        return EX_CANTCREAT;
      }
      throw new CommandFailed('copying failed', { cause: error });
    } finally {
      await target.close();
    }
  });
}
