/**
 * `npm run migrate`: bring DATABASE_URL's schema up to date and exit. Instances also migrate on
 * start (idempotent, serialised by kysely's lock table); a fleet runs this once before rolling
 * out so no instance starts on a half-migrated database.
 */
import { ConfigError, loadConfig } from '../../src/app/config.ts';
import { createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';

try {
  const config = loadConfig(process.env);
  const handle = createDb(config.DATABASE_URL);
  try {
    const { error, results = [] } = await migrateToLatest(handle.db, handle.engine);
    for (const r of results) process.stdout.write(`${r.status === 'Success' ? 'applied' : r.status}: ${r.migrationName}\n`);
    if (error) {
      process.stderr.write(`migration failed on ${handle.target}: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    } else {
      process.stdout.write(`${handle.target} is up to date (${results.length} applied now)\n`);
    }
  } finally {
    await handle.close();
  }
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 78;
}
