/**
 * Taking and verifying backups of either engine (docs/operators.md, "Backup and restore"). A
 * backup is one file (SQLite: a database file made by the online backup API; PostgreSQL: a
 * `pg_dump -Fc` archive) and its manifest beside it (manifest.ts). Both are written under a
 * temporary name, fsynced and renamed, so a backup that exists under its name is complete.
 */
import { rm, stat, rename } from 'node:fs/promises';
import { dirname } from 'node:path';
import { engineOf, sqlitePath, type Engine } from '../../db/database-url.ts';
import { migrationNames } from '../../db/migrations/index.ts';
import { fileDigest, readManifest, syncPath, writeManifest, type Manifest } from './manifest.ts';
import { dumpPostgres, inspectDump } from './postgres-backup.server.ts';
import { BackupToolError } from './postgres-tools.server.ts';
import { backupSqliteFile, inspectSqliteFile } from './sqlite-worker.server.ts';

/**
 * Why a backup, verify or restore cannot go on (the commands map each to a sysexits.h status):
 * the target exists or is not empty; the input is missing; it is damaged, from a newer schema or
 * of the other engine;
 * a program it needs is missing or too old; a server holds the database.
 */
export type BackupFailure = 'exists' | 'no-input' | 'damaged' | 'newer' | 'mismatch' | 'unavailable' | 'busy';

/** A backup, verify or restore that cannot go on: one line, and its kind. */
export class BackupError extends Error {
  override name = 'BackupError';
  readonly kind: BackupFailure;
  constructor(message: string, kind: BackupFailure) {
    super(message);
    this.kind = kind;
  }
}

const missing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/** Back up the database `databaseUrl` names into the new file `out` (never overwritten), while it serves. */
export async function takeBackup(databaseUrl: string, out: string, now: () => number = Date.now): Promise<Manifest> {
  const engine = engineOf(databaseUrl);
  if (await stat(out).then(() => true, () => false)) throw new BackupError(`${out} exists: backups are never overwritten; choose another name`, 'exists');
  if (!(await stat(dirname(out)).then((s) => s.isDirectory(), () => false))) throw new BackupError(`the directory of ${out} does not exist`, 'exists');
  const partial = `${out}.${process.pid}.partial`;
  try {
    const takenAt = new Date(now()).toISOString();
    let contents: { migrations: string[]; tables: Record<string, number>; serverVersion?: string; toolVersion?: string };
    if (engine === 'sqlite') {
      const source = sqlitePath(databaseUrl);
      if (source === ':memory:') throw new BackupError('DATABASE_URL is :memory:, which no other process can read: nothing to back up', 'no-input');
      if (!(await stat(source).then((s) => s.size > 0, () => false))) throw new BackupError(`${source} does not exist or is empty: nothing to back up`, 'no-input');
      contents = await backupSqliteFile(source, partial);
    } else {
      contents = await dumpPostgres(databaseUrl, partial);
    }
    await syncPath(partial);
    const digest = await fileDigest(partial);
    await rename(partial, out);
    await syncPath(dirname(out));
    return await writeManifest(out, { engine, takenAt, ...digest, ...contents });
  } catch (error) {
    await rm(partial, { force: true });
    if (error instanceof BackupToolError) throw new BackupError(error.message, 'unavailable');
    throw error;
  }
}

export interface SchemaStatus {
  relation: 'current' | 'older' | 'newer';
  /** Migrations the backup lacks (applied on restore). */
  toApply: string[];
  /** Migrations the backup has and this code does not know. */
  unknown: string[];
}

export function schemaStatus(engine: Engine, migrations: readonly string[]): SchemaStatus {
  const known = migrationNames(engine);
  const unknown = migrations.filter((name) => !known.includes(name));
  const toApply = known.filter((name) => !migrations.includes(name));
  return { relation: unknown.length > 0 ? 'newer' : toApply.length > 0 ? 'older' : 'current', toApply, unknown };
}

export interface Verified {
  manifest: Manifest;
  schema: SchemaStatus;
}

const damaged = (file: string, why: string) => new BackupError(`${file} is damaged: ${why}`, 'damaged');
const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * Check a backup before trusting it: its size and SHA-256 against the manifest, then the engine's
 * own reading (SQLite: integrity_check, the migrations and the row counts; PostgreSQL: pg_restore
 * reads its table of contents and its migrations). Throws a BackupError with one line.
 */
export async function verifyBackup(file: string): Promise<Verified> {
  const size = await stat(file).then((s) => (s.isFile() ? s.size : undefined), (error: unknown) => (missing(error) ? undefined : Promise.reject(error)));
  if (size === undefined) throw new BackupError(`${file} does not exist or is not a file`, 'no-input');
  const manifest = await readManifest(file);
  if ('problem' in manifest) throw new BackupError(`${file} cannot be verified: ${manifest.problem}`, 'damaged');
  if (size < manifest.bytes) throw damaged(file, `truncated (${size} of ${manifest.bytes} bytes)`);
  if (size !== manifest.bytes) throw damaged(file, `${size} bytes where its manifest says ${manifest.bytes}`);
  if ((await fileDigest(file)).sha256 !== manifest.sha256) throw damaged(file, 'its SHA-256 differs from its manifest (bytes changed since it was taken)');
  if (manifest.engine === 'sqlite') {
    let contents;
    try {
      contents = await inspectSqliteFile(file);
    } catch (error) {
      throw damaged(file, `SQLite cannot read it (${(error as Error).message})`);
    }
    if (contents.integrity !== 'ok') throw damaged(file, `PRAGMA integrity_check: ${contents.integrity}`);
    if (!same(contents.migrations, manifest.migrations)) throw damaged(file, 'its migrations differ from its manifest');
    const differing = Object.keys({ ...contents.tables, ...manifest.tables }).filter((t) => contents.tables[t] !== manifest.tables[t]);
    if (differing.length > 0) throw damaged(file, `row counts differ from its manifest (${differing.join(', ')})`);
  } else {
    let contents;
    try {
      contents = await inspectDump(file);
    } catch (error) {
      if (error instanceof BackupToolError) throw /not found|older/.test(error.message) ? new BackupError(error.message, 'unavailable') : damaged(file, error.message);
      throw error;
    }
    if (!same(contents.migrations, manifest.migrations)) throw damaged(file, 'its migrations differ from its manifest');
  }
  return { manifest, schema: schemaStatus(manifest.engine, manifest.migrations) };
}

/** One line describing a verified backup. */
export function describeBackup(file: string, { manifest, schema }: Verified): string {
  const rows = Object.entries(manifest.tables)
    .map(([table, n]) => `${table} ${n}`)
    .join(', ');
  const latest = manifest.migrations.at(-1) ?? 'none';
  const relation = schema.relation === 'current' ? 'current' : schema.relation === 'older' ? `older: restore applies ${schema.toApply.join(', ')}` : `newer than this code: ${schema.unknown.join(', ')}; restore refuses it`;
  return `ok ${file}: ${manifest.engine} backup taken ${manifest.takenAt}, ${manifest.bytes} bytes, checksum ok, schema at ${latest} (${relation}), rows: ${rows}`;
}
