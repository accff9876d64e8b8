/**
 * `npm run migrate`: bring DATABASE_URL's schema up to date and exit. Instances also migrate on
 * start (idempotent, serialised by kysely's lock table); a fleet runs this once before rolling
 * out so no instance starts on a half-migrated database. Exit codes: run-cli.ts.
 */
import { runCli } from './run-cli.ts';

if (import.meta.main) {
  process.exitCode = await runCli('migrate', { synopsis: 'npm run migrate', options: {} }, async ({ db, stdout }) => {
    let applied = 0;
    const handle = await db({
      onMigration: (result) => {
        if (result.status === 'Success') applied += 1;
        stdout.write(`${result.status === 'Success' ? 'applied' : result.status}: ${result.migrationName}\n`);
      },
    });
    stdout.write(`${handle.target} is up to date (${applied} applied now)\n`);
    return 0;
  });
}
