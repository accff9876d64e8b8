/**
 * What the console's endpoints and pages need: the settings they read, the database, the log,
 * and a clock (tests move it; the composition root leaves it to Date.now).
 */
import type { Logger } from 'pino';
import type { DbHandle } from '../../db/create-db.ts';
import type { SessionPolicy } from './sessions.server.ts';

export interface ConsoleSettings {
  /** The site's public origin: the passkeys' relying party (its host) and the only origin accepted. */
  SITE_URL: string;
  CONSOLE_SESSION_IDLE_MINUTES: number;
  CONSOLE_SESSION_MAX_HOURS: number;
  /** The database, for its erasure ledger's default place (erasure-ledger.server.ts). */
  DATABASE_URL: string;
  ERASURE_LEDGER?: string | undefined;
  /** Where scheduled backups go: the freshness page shows the newest there. */
  BACKUP_DIR?: string | undefined;
}

export interface ConsoleDeps {
  config: ConsoleSettings;
  db: DbHandle;
  log: Logger;
  /** Epoch ms now; Date.now when absent. */
  consoleClock?: () => number;
}

export const nowOf = (deps: Pick<ConsoleDeps, 'consoleClock'>): number => (deps.consoleClock ?? Date.now)();

export function sessionPolicy(config: ConsoleSettings): SessionPolicy {
  return { idleMs: config.CONSOLE_SESSION_IDLE_MINUTES * 60_000, maxMs: config.CONSOLE_SESSION_MAX_HOURS * 3_600_000 };
}

/** The relying party of WebAuthn (section 5.1.4): the site's host name and its origin. */
export function relyingParty(config: ConsoleSettings): { rpID: string; origin: string; https: boolean } {
  const url = new URL(config.SITE_URL);
  return { rpID: url.hostname, origin: url.origin, https: url.protocol === 'https:' };
}
