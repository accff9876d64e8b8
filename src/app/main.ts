/**
 * Production entry: `node src/app/main.ts` (npm start). Validates configuration, migrates,
 * serves, and shuts down cleanly on SIGTERM/SIGINT.
 *
 * A start-up that cannot succeed ends the process at once with one line on stderr (no stack for
 * the failures an operator causes and fixes) and an exit status from sysexits.h, so a supervisor
 * can tell a configuration mistake, which restarting will not fix, from an outage, which it may:
 *   78 EX_CONFIG       an unsupported Node.js, a variable is invalid, DATABASE_URL cannot be created or opened, HOST is
 *                      not an address of this machine, the database refuses the credentials, the build's
 *                      static manifest is malformed, the build's assistant index is of another format
 *                      (run `npm run build`)
 *   77 EX_NOPERM       not allowed to listen on PORT (EACCES: below 1024 without privilege)
 *   75 EX_TEMPFAIL     the database stayed locked past its budget (run again)
 *   69 EX_UNAVAILABLE  PORT is in use (EADDRINUSE); the database cannot be reached
 *   66 EX_NOINPUT      no Astro build in DIST_DIR, or one without its static manifest or assistant index
 *                      (run `npm run build`)
 *   70 EX_SOFTWARE     anything else: a failed migration, an unexpected error (stack logged),
 *                      an uncaught exception while serving
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, configErrorLine, defaultOrigins, loadConfig, secretValues, type Config } from './config.ts';
import { prepareBackupLocation, prepareDatabaseLocation } from './database-location.ts';
import type { RunningApp } from './app.ts';
import { createLogger, flushLogger } from '../server/log.ts';
import { startIdleCompaction } from '../server/idle-compaction.ts';
import { redactUrlsIn } from '../lib/redact-url.ts';
import { secretRedactor } from '../lib/redact-secrets.ts';
import { StaticManifestError } from '../server/static-manifest.ts';
import { unsupportedNodeLine } from '../lib/node-version.ts';
import { chainOf, databaseFailure, EX_CONFIG, EX_NOINPUT, EX_NOPERM, EX_SOFTWARE, EX_UNAVAILABLE, firstLine, type Failure } from './exit-codes.ts';

// npm start refuses an old Node.js before loading any .ts (bin/require-node.mjs); this covers
// `node src/app/main.ts` run directly on a Node.js that loads .ts but is outside "engines".
const nodeProblem = unsupportedNodeLine(process.versions.node);
if (nodeProblem !== undefined) {
  process.stderr.write(`${nodeProblem}\n`);
  process.exit(EX_CONFIG);
}

let config: Config;
try {
  config = loadConfig(process.env);
  prepareDatabaseLocation(config.DATABASE_URL);
  prepareBackupLocation(config);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${configErrorLine(error)}\n`);
    process.exit(EX_CONFIG);
  }
  throw error;
}

const log = createLogger({ level: config.LOG_LEVEL, buffered: config.NODE_ENV === 'production', secrets: secretValues(config) });
// Astro's Node adapter installs an unhandledRejection listener that ignores rejections outside a
// request, which also disables Node's default crash: log them here so a failing job or store is
// seen. An uncaught exception leaves the process in an unknown state: log it and exit (a
// supervisor restarts; the database is transactional).
process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled promise rejection'));
process.on('uncaughtException', (error) => {
  log.fatal({ err: error }, 'uncaught exception');
  flushLogger(log);
  process.exit(EX_SOFTWARE);
});

let app: RunningApp | undefined;
try {
  // Loaded after the configuration is known good, so a bad setting is reported without first
  // loading the database drivers, the jobs and the rest of the app.
  const { createApp } = await import('./app.ts');
  app = await createApp(config, log);
} catch (error) {
  await failStart(buildFailure(error, config), error);
}
// Registered before listening: a supervisor may signal as soon as it sees the 'listening' line.
let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  app!.close().then(
    () => {
      log.info('stopped');
      flushLogger(log);
      process.exit(0);
    },
    (error: unknown) => {
      log.error({ err: error }, 'shutdown failed');
      flushLogger(log);
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
try {
  const { origin, services } = await app!.listen(); // createApp succeeded, or failStart exited
  // Before the 'listening' line, which callers take as the cue to use (or signal) the server.
  warnIfBuiltForAnotherOrigin(services.config);
  log.info({ url: origin, database: services.db.target }, 'listening');
  flushLogger(log);
  // After a flood, the heap's garbage stays resident until something allocates (issue 35).
  startIdleCompaction(log, { growthBytes: services.config.IDLE_COMPACTION_MB * 1024 * 1024 });
} catch (error) {
  await failStart(listenFailure(error, config), error);
}

/**
 * Absolute URLs in the prebuilt pages (/api/news, the feed, the sitemap, OpenAPI servers) carry
 * the origin of the build (astro.config.mjs), so a build for :4321 served on :4538 links to
 * :4321. The sitemap index, which @astrojs/sitemap writes from that origin, tells which it was.
 */
function warnIfBuiltForAnotherOrigin(cfg: Config): void {
  let loc: string | undefined;
  try {
    loc = /<loc>([^<]+)<\/loc>/.exec(readFileSync(join(cfg.DIST_DIR, 'client', 'sitemap-index.xml'), 'utf8'))?.[1];
  } catch {
    return; // no sitemap in this build: nothing to compare
  }
  const built = URL.parse(loc ?? '')?.origin;
  if (built === undefined || defaultOrigins(cfg.SITE_URL).includes(built)) return;
  log.warn({ builtFor: built, servedAs: cfg.SITE_URL }, `the build in ${cfg.DIST_DIR} was made for ${built} but the site is served as ${cfg.SITE_URL}: its absolute links (feed, sitemap, /api/news) point to ${built}; rebuild with the same SITE_URL (or HOST and PORT) as the server: SITE_URL=${cfg.SITE_URL} npm run build`);
}

/**
 * Report and exit. Anything a half-started app holds (database handles, a Redis connection)
 * could keep the process alive listening on nothing, so this always ends in process.exit, after
 * giving the app a bounded moment to release the database.
 */
async function failStart(failure: Failure, error: unknown): Promise<never> {
  // stderr gets what the log line gets: no URL password, no configured secret.
  const line = secretRedactor(secretValues(config))(redactUrlsIn(failure.line));
  // One line, on stderr, as for a configuration error: a terminal or a journal that shows both
  // streams printed it twice when the log repeated it. Only an unexpected failure (a bug) also
  // goes to the log, with the stack the one line leaves out.
  if (failure.unexpected) log.fatal({ exitCode: failure.exitCode, err: error }, line);
  flushLogger(log);
  process.stderr.write(`${line}\n`);
  if (app !== undefined) {
    await Promise.race([app.close(0).catch(() => {}), new Promise((r) => setTimeout(r, 2_000).unref())]);
  }
  process.exit(failure.exitCode);
}

/** Failures of createApp: the Astro build, its assistant index, and the database (open, connect, migrate: exit-codes.ts). */
function buildFailure(error: unknown, cfg: Config): Failure {
  const top = chainOf(error)[0]?.message ?? '';
  if (chainOf(error).some((e) => e.code === 'ERR_MODULE_NOT_FOUND') && /Astro build/.test(top)) {
    return { exitCode: EX_NOINPUT, line: `start-up failed: no Astro build in DIST_DIR (${cfg.DIST_DIR}): run \`npm run build\` first` };
  }
  // Files `astro build` writes for the server (the static manifest, the assistant's index): a
  // build from before them, or an interrupted one, is "no build" (66); one that is there but
  // unreadable is a configuration to fix (78). Either way the fix is a new build. The index's
  // error is recognised by its code, so this file does not load the chat feature's SQLite driver.
  const first = chainOf(error)[0] as (Error & { code?: unknown; reason?: unknown }) | undefined;
  if (error instanceof StaticManifestError || first?.code === 'ASSISTANT_INDEX_UNUSABLE') {
    const line = error instanceof StaticManifestError ? error.message : `${firstLine(top)}: run \`npm run build\``;
    return { exitCode: first?.reason === 'missing' ? EX_NOINPUT : EX_CONFIG, line: `start-up failed: ${line}` };
  }
  const failure = databaseFailure(error, cfg.DATABASE_URL);
  return { ...failure, line: `start-up failed: ${failure.line}` };
}

/** Failures of the listening socket. */
function listenFailure(error: unknown, cfg: Config): Failure {
  const code = chainOf(error).map((e) => e.code).find((c) => typeof c === 'string');
  const at = `${cfg.HOST}:${cfg.PORT}`;
  switch (code) {
    case 'EADDRINUSE':
      return { exitCode: EX_UNAVAILABLE, line: `start-up failed: cannot listen on ${at}: the port is in use (EADDRINUSE); stop the other process or set PORT` };
    case 'EACCES':
      return { exitCode: EX_NOPERM, line: `start-up failed: not allowed to listen on ${at} (EACCES): ports below 1024 need privileges; set PORT` };
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { exitCode: EX_CONFIG, line: `start-up failed: cannot listen on ${at}: HOST is not an address of this machine (${code})` };
    default:
      return { exitCode: EX_SOFTWARE, line: `start-up failed: cannot listen on ${at}: ${error instanceof Error ? firstLine(error.message) : String(error)}`, unexpected: true };
  }
}
