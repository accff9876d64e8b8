/**
 * Production entry: `node src/app/main.ts` (npm start). Validates configuration, migrates,
 * serves, and shuts down cleanly on SIGTERM/SIGINT.
 */
import { ConfigError, loadConfig, type Config } from './config.ts';
import { createApp } from './app.ts';
import { createLogger, flushLogger } from '../server/log.ts';

let config: Config;
try {
  config = loadConfig(process.env);
} catch (error) {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\nSee README.md, section "Configuration".\n`);
    process.exit(78); // EX_CONFIG (sysexits.h)
  }
  throw error;
}

const log = createLogger({ level: config.LOG_LEVEL, buffered: config.NODE_ENV === 'production' });
// Astro's Node adapter installs an unhandledRejection listener that ignores rejections outside a
// request, which also disables Node's default crash: log them here so a failing job or store is
// seen. An uncaught exception leaves the process in an unknown state: log it and exit (a
// supervisor restarts; the database is transactional).
process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled promise rejection'));
process.on('uncaughtException', (error) => {
  log.fatal({ err: error }, 'uncaught exception');
  flushLogger(log);
  process.exit(1);
});
try {
  const app = await createApp(config, log);
  const origin = await app.listen();
  log.info({ url: origin, database: app.services.db.target }, 'listening');
  flushLogger(log);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    app.close().then(
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
} catch (error) {
  log.fatal({ err: error }, 'start-up failed');
  flushLogger(log);
  process.exitCode = 1;
}
