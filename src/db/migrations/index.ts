import type { Kysely } from 'kysely';
import { Migrator, type Migration, type MigrationResultSet } from 'kysely/migration';
import type { Engine } from '../create-db.ts';
import { initial } from './0001-initial.ts';
import { healthProbe } from './0002-health-probe.ts';
import { apiKeys } from './0003-api-keys.ts';
import { altchaReplay } from './0004-altcha-replay.ts';
import { contactEmailIndex } from './0005-contact-email-index.ts';
import { contactDeliveries } from './0006-contact-deliveries.ts';
import { consoleTables } from './0007-console.ts';

/** Every migration, in order. Names sort lexically; never rename or edit a shipped one. */
function migrations(engine: Engine): Record<string, Migration> {
  return {
    '0001-initial': initial(engine),
    '0002-health-probe': healthProbe(),
    '0003-api-keys': apiKeys(engine),
    '0004-altcha-replay': altchaReplay(),
    '0005-contact-email-index': contactEmailIndex(),
    '0006-contact-deliveries': contactDeliveries(engine),
    '0007-console': consoleTables(engine),
  };
}

/** The names of every migration this code knows, in order: a backup with others is from a newer version. */
export function migrationNames(engine: Engine): string[] {
  return Object.keys(migrations(engine)).sort();
}

/**
 * Bring the schema up to date. Idempotent: applied migrations are skipped, and kysely's lock
 * table keeps two instances starting together from running one twice. Returns kysely's
 * `{ error, results }` instead of throwing, like every batch job here.
 */
export function migrateToLatest(db: Kysely<any>, engine: Engine): Promise<MigrationResultSet> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations(engine) },
  });
  return migrator.migrateToLatest();
}
