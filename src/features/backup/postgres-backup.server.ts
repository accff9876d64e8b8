/**
 * PostgreSQL backups: `pg_dump -Fc` of the database while it serves, and the checks and restore
 * of such a dump with pg_restore.
 *
 * The row counts in the manifest are those of the dump exactly: we open a REPEATABLE READ
 * transaction, export its snapshot (pg_export_snapshot), count in it, and hand the snapshot to
 * pg_dump (--snapshot), which then dumps that same state; the transaction stays open until pg_dump
 * has finished. Commits acknowledged before the snapshot are in it; later ones are not.
 */
import pg from 'pg';
import { BackupToolError, databaseNameOf, findPgTool, libpqEnv, runTool, toolLine } from './postgres-tools.server.ts';

export interface DumpContents {
  migrations: string[];
  tables: Record<string, number>;
  serverVersion: string;
  toolVersion: string;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => {}); // a lost connection is reported by the query that meets it
  await client.connect();
  return client;
}

async function userTables(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(
    "select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name",
  );
  return rows.map((r) => r.name);
}

/** Server major version, e.g. 15 for 150020. */
async function serverVersion(client: pg.Client): Promise<{ major: number; text: string }> {
  const { rows } = await client.query<{ num: string; text: string }>("select current_setting('server_version_num') as num, current_setting('server_version') as text");
  return { major: Math.floor(Number(rows[0]!.num) / 10_000), text: rows[0]!.text.split(' ')[0]! };
}

/** Dump `url` into `target` (custom format); returns what the dump holds. */
export async function dumpPostgres(url: string, target: string): Promise<DumpContents> {
  const client = await connect(url);
  try {
    const server = await serverVersion(client);
    const tool = await findPgTool('pg_dump', server.major);
    await client.query('begin isolation level repeatable read read only');
    const { rows } = await client.query<{ id: string }>('select pg_export_snapshot() as id');
    const tables: Record<string, number> = {};
    for (const name of await userTables(client)) {
      const counted = await client.query<{ n: string }>(`select count(*) as n from public.${quote(name)}`);
      tables[name] = Number(counted.rows[0]!.n);
    }
    const migrations = tables['kysely_migration'] === undefined ? [] : (await client.query<{ name: string }>('select name from kysely_migration order by name')).rows.map((r) => r.name);
    const dumped = await runTool(tool.path, ['--format=custom', `--snapshot=${rows[0]!.id}`, '--no-owner', '--no-privileges', '--file', target], libpqEnv(url));
    await client.query('commit');
    if (dumped.code !== 0) throw new BackupToolError(`pg_dump failed: ${toolLine(dumped)}`);
    return { migrations, tables, serverVersion: server.text, toolVersion: tool.version };
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Check a custom-format dump without a server: pg_restore can read its table of contents, and
 * the migrations recorded in its kysely_migration data. Throws a BackupToolError with one line.
 */
export async function inspectDump(file: string): Promise<{ migrations: string[]; entries: number }> {
  const tool = await findPgTool('pg_restore');
  const listed = await runTool(tool.path, ['--list', file]);
  if (listed.code !== 0) throw new BackupToolError(`pg_restore cannot read it: ${toolLine(listed)}`);
  const entries = listed.stdout.split('\n').filter((line) => /^\d+;/.test(line));
  if (!entries.some((line) => / TABLE DATA public kysely_migration /.test(line))) throw new BackupToolError('it is a PostgreSQL dump, but not of this site (no kysely_migration table)');
  const data = await runTool(tool.path, ['--data-only', '--table=kysely_migration', '--file=-', file]);
  if (data.code !== 0) throw new BackupToolError(`pg_restore cannot read its data: ${toolLine(data)}`);
  const lines = data.stdout.split('\n');
  const start = lines.findIndex((line) => /^COPY public\.kysely_migration /.test(line));
  const migrations: string[] = [];
  for (const line of start < 0 ? [] : lines.slice(start + 1)) {
    if (line === '\\.') break;
    migrations.push(line.split('\t')[0]!);
  }
  return { migrations: migrations.sort(), entries: entries.length };
}

export interface TargetState {
  /** Tables in its public schema (0: empty). */
  tables: number;
  /** Sessions on it other than ours (a running server's pool). */
  otherSessions: number;
  created: boolean;
}

/** Open the target database, creating it when it does not exist; say how full and how busy it is. */
export async function prepareTarget(url: string): Promise<TargetState> {
  let created = false;
  let client: pg.Client;
  try {
    client = await connect(url);
  } catch (error) {
    if ((error as { code?: string }).code !== '3D000') throw error; // 3D000: invalid_catalog_name, no such database
    const maintenance = new URL(url);
    maintenance.pathname = '/postgres';
    const admin = await connect(maintenance.toString());
    try {
      await admin.query(`create database ${quote(databaseNameOf(url))}`);
    } finally {
      await admin.end();
    }
    created = true;
    client = await connect(url);
  }
  try {
    const tables = (await userTables(client)).length;
    const { rows } = await client.query<{ n: string }>('select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    return { tables, otherSessions: Number(rows[0]!.n), created };
  } finally {
    await client.end();
  }
}

/** Drop every table of the target's public schema (restore --force). */
async function emptyTarget(url: string): Promise<void> {
  const client = await connect(url);
  try {
    const tables = await userTables(client);
    if (tables.length > 0) await client.query(`drop table ${tables.map((t) => `public.${quote(t)}`).join(', ')} cascade`);
  } finally {
    await client.end();
  }
}

/**
 * pg_restore `file` into the database `url`, in one transaction: all of it or nothing. With
 * `replace`, its tables are dropped first, once a suitable pg_restore has been found.
 */
export async function restoreDump(url: string, file: string, replace: boolean): Promise<void> {
  const client = await connect(url);
  const server = await serverVersion(client).finally(() => client.end());
  const tool = await findPgTool('pg_restore', server.major);
  if (replace) await emptyTarget(url);
  const restored = await runTool(tool.path, ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', '--dbname', databaseNameOf(url), file], libpqEnv(url));
  if (restored.code !== 0) throw new BackupToolError(`pg_restore failed: ${toolLine(restored)}`);
}
