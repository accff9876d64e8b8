/**
 * Where the SQLite database will live, checked before anything opens it (the server's entry and
 * every command run it once at start-up).
 */
import { accessSync, closeSync, constants, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { engineOf, sqlitePath } from '../db/database-url.ts';
import { ConfigError, type Config } from './config.ts';
import { DEFAULT_DATABASE_URL } from './config-values.ts';

/**
 * Check, before anything opens it, that SQLite can create and write DATABASE_URL's file: its
 * directory exists and is writable, and the file, if present, is a writable regular file.
 * Throws a ConfigError otherwise. Only the default `./data` is created when missing, so that
 * `npm start` works on a fresh clone; any other missing directory is a mistake (a typo, an
 * unmounted volume) that creating it would hide. Checking first also avoids Node's recursive
 * mkdir, which spins forever on a path under /proc.
 *
 * I/O, so not part of `loadConfig`: the entry calls it once at start-up.
 */
export function prepareDatabaseLocation(databaseUrl: string): void {
  if (engineOf(databaseUrl) !== 'sqlite') return;
  const path = sqlitePath(databaseUrl);
  if (path === ':memory:') return;
  const dir = dirname(path);
  const problem = (text: string) => new ConfigError([`DATABASE_URL: ${text}`]);
  const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error);
  try {
    if (!statSync(dir).isDirectory()) throw problem(`${dir} is not a directory`);
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    if (databaseUrl !== DEFAULT_DATABASE_URL || codeOf(error) !== 'ENOENT') {
      throw problem(`the directory ${dir} does not exist or cannot be read (${codeOf(error)}); create it first`);
    }
    try {
      mkdirSync(dir); // not recursive: the default's parent is the working directory
    } catch (mkdirError) {
      if (codeOf(mkdirError) !== 'EEXIST') throw problem(`cannot create the default directory ${dir} (${codeOf(mkdirError)})`);
    }
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw problem(`cannot write in ${dir} (${codeOf(error)}): SQLite creates the database and its -wal and -shm files there`);
  }
  // Opening for append creates the file as SQLite would and proves we may write it, even where
  // access(2) says yes to root (procfs, a read-only bind mount); an empty file is an empty database.
  try {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (stat !== undefined && !stat.isFile()) throw problem(`${path} exists and is not a file`);
    closeSync(openSync(path, 'a'));
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw problem(`cannot create or write ${path} (${codeOf(error)})`);
  }
}

/**
 * With a scheduled backup on (BACKUP_CRON and JOBS_ENABLED), BACKUP_DIR must be an existing
 * directory this process may write: never created on the fly (an unmounted backup volume would
 * otherwise fill the root disk unnoticed). Throws a ConfigError otherwise.
 */
export function prepareBackupLocation(config: Pick<Config, 'BACKUP_CRON' | 'BACKUP_DIR' | 'JOBS_ENABLED'>): void {
  if (config.BACKUP_CRON === undefined || !config.JOBS_ENABLED) return;
  const dir = config.BACKUP_DIR;
  try {
    if (!statSync(dir).isDirectory()) throw new Error('not a directory');
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new ConfigError([`BACKUP_DIR: ${dir} must be an existing directory this process can write (${code}); create it, or unset BACKUP_CRON`]);
  }
}
