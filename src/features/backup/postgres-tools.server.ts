/**
 * PostgreSQL's own client programs for backups: pg_dump (custom format, -Fc) and pg_restore. The
 * client must be at least the server's major version (pg_dump refuses a newer server, and the
 * PostgreSQL docs advise restoring with the pg_restore of the dump's version or newer). Debian
 * installs each major version's programs under /usr/lib/postgresql/<major>/bin, so the server's
 * own version is taken from there when present, then the newest there that is new enough, then
 * whatever PATH finds, whose version is checked.
 *
 * Credentials go to the child in PGPASSWORD, never on its command line (visible to `ps`).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export class BackupToolError extends Error {
  override name = 'BackupToolError';
}

const DEBIAN_ROOT = '/usr/lib/postgresql';

export interface PgTool {
  path: string;
  /** e.g. "15.20". */
  version: string;
  major: number;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run a program; stdout kept up to `maxStdout` characters, stderr's last 4 KiB. Never rejects but for a spawn failure. */
export function runTool(path: string, args: string[], env: NodeJS.ProcessEnv = process.env, maxStdout = 64 * 1024 * 1024): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      if (stdout.length < maxStdout) stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-4096);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The last meaningful line of a tool's complaint, for a one-line error. */
export function toolLine(result: RunResult): string {
  return result.stderr.trim().split('\n').filter(Boolean).at(-1)?.trim() ?? `exit ${result.code}`;
}

function candidates(name: string, serverMajor: number | undefined): string[] {
  const majors = existsSync(DEBIAN_ROOT) ? readdirSync(DEBIAN_ROOT).map(Number).filter((m) => Number.isInteger(m) && m > 0) : [];
  majors.sort((a, b) => b - a);
  const debian = (major: number) => join(DEBIAN_ROOT, String(major), 'bin', name);
  const preferred = serverMajor !== undefined && majors.includes(serverMajor) ? [debian(serverMajor)] : [];
  const newer = majors.filter((m) => serverMajor === undefined || m >= serverMajor).map(debian);
  return [...new Set([...preferred, ...newer].filter((p) => existsSync(p))), name];
}

/**
 * The `name` program (pg_dump, pg_restore) for a server of major version `serverMajor` (any
 * version when undefined). Throws a BackupToolError with one line when there is none or it is older.
 */
export async function findPgTool(name: 'pg_dump' | 'pg_restore', serverMajor?: number): Promise<PgTool> {
  const hint = `install the PostgreSQL client programs${serverMajor === undefined ? '' : ` of version ${serverMajor} or newer`} (Debian: apt-get install postgresql-client${serverMajor === undefined ? '' : `-${serverMajor}`})`;
  for (const path of candidates(name, serverMajor)) {
    let result: RunResult;
    try {
      result = await runTool(path, ['--version']);
    } catch {
      continue; // not on PATH
    }
    const version = /\(PostgreSQL\)\s+(\d+)(?:\.(\d+))?/.exec(result.stdout);
    if (result.code !== 0 || !version) continue;
    const major = Number(version[1]);
    const tool = { path, version: `${version[1]}.${version[2] ?? '0'}`, major };
    if (serverMajor !== undefined && major < serverMajor) {
      throw new BackupToolError(`${name} ${tool.version} (${path}) is older than the PostgreSQL server (${serverMajor}): ${hint}`);
    }
    return tool;
  }
  throw new BackupToolError(`${name} was not found: ${hint}`);
}

/**
 * libpq's environment for a postgres:// URL: host, port, user, database, and the password out of
 * sight of `ps`. sslmode and a Unix-socket `host` query parameter are carried over.
 */
export function libpqEnv(databaseUrl: string, database?: string): NodeJS.ProcessEnv {
  const url = new URL(databaseUrl);
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ['PGHOST', 'PGPORT', 'PGUSER', 'PGPASSWORD', 'PGDATABASE', 'PGSSLMODE', 'PGSERVICE', 'PGOPTIONS']) delete env[name];
  const host = url.searchParams.get('host') ?? decodeURIComponent(url.hostname).replace(/^\[|\]$/g, '');
  if (host !== '') env['PGHOST'] = host;
  if (url.port !== '') env['PGPORT'] = url.port;
  if (url.username !== '') env['PGUSER'] = decodeURIComponent(url.username);
  if (url.password !== '') env['PGPASSWORD'] = decodeURIComponent(url.password);
  env['PGDATABASE'] = database ?? decodeURIComponent(url.pathname.slice(1));
  const sslmode = url.searchParams.get('sslmode');
  if (sslmode !== null) env['PGSSLMODE'] = sslmode;
  return env;
}

/** The database name a postgres:// URL names. */
export function databaseNameOf(databaseUrl: string): string {
  return decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
}
