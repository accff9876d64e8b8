/** What the figures were measured on: machine, Node, package and SQLite versions, the commit. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';

export const PACKAGES = ['astro', '@astrojs/node', 'kysely', 'better-sqlite3', 'pino', 'lru-cache', 'autocannon'] as const;

export interface Machine {
  cpu: string;
  cores: number;
  memoryGb: number;
  node: string;
  packages: Record<string, string>;
  sqlite: string;
  sqliteCli: string;
  commit: string;
  loadBefore: number[];
}

function safe(run: () => string, fallback: string): string {
  try {
    return run();
  } catch {
    return fallback;
  }
}

/** HEAD, and whether the working tree differs from it. */
export function commitOf(repo: string): string {
  const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
  return safe(() => `${git('rev-parse', '--short', 'HEAD')}${git('status', '--porcelain', '--', 'src', 'jobs', 'content', 'astro.config.mjs').length > 0 ? ' + uncommitted changes' : ''}`, 'unknown');
}

export function machine(repo: string): Machine {
  const packages: Record<string, string> = {};
  for (const name of PACKAGES) {
    packages[name] = safe(() => (JSON.parse(readFileSync(join(repo, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version, '?');
  }
  const memory = new Database(':memory:');
  const sqlite = (memory.prepare('select sqlite_version() as v').get() as { v: string }).v;
  memory.close();
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGb: totalmem() / 2 ** 30,
    node: process.version,
    packages,
    sqlite,
    sqliteCli: safe(() => execFileSync('sqlite3', ['--version'], { encoding: 'utf8' }).split(' ')[0] ?? '?', 'not installed'),
    commit: commitOf(repo),
    loadBefore: loadavg(),
  };
}
