/**
 * Move a SQLite site to PostgreSQL (`npm run -s db:copy`, jobs/cli/db-copy.ts): every row of
 * every table of ours, copied from one consistent snapshot of the SQLite file while its server
 * keeps running, then verified by counting both sides.
 *
 * - Consistent: all rows are read in one read transaction of a separate read-only connection. In
 *   WAL mode that is a snapshot (https://sqlite.org/wal.html#concurrency): the running server
 *   writes on, and what it writes after the snapshot is not part of this copy (stop it, or copy
 *   again with `--resume`, before switching over).
 * - Safe: a target that already holds rows is refused, unless the caller resumes an interrupted
 *   copy; each batch is inserted with ON CONFLICT DO NOTHING in its own transaction, so a resumed
 *   copy skips what arrived and adds the rest, and nothing is ever overwritten.
 * - Complete: the tables come from the source's own catalogue (not a list that a new migration
 *   could outgrow), parents before children by their foreign keys; identity sequences are moved
 *   past the copied ids, so the next row PostgreSQL numbers does not collide.
 */
import BetterSqlite3 from 'better-sqlite3';
import { sql, type Kysely } from 'kysely';

/** Machine state, not data: the readiness probe's row is rewritten by each server on its own database. */
const NOT_DATA = new Set(['health_probe']);

/** Rows per INSERT (one array parameter per column, so no bind-parameter limit applies). */
const BATCH_ROWS = 20_000;

export interface TableCopy {
  table: string;
  /** Rows in the source snapshot. */
  source: number;
  /** Rows in the target after the copy. */
  target: number;
}

export interface CopyOptions {
  /** Continue a copy into a target that already holds some of the rows. */
  resume?: boolean;
  onProgress?: (table: string, done: number, total: number) => void;
}

/** The target held rows and `resume` was not given; `tables` names them. */
export class TargetNotEmpty extends Error {
  override name = 'TargetNotEmpty';
  readonly tables: string[];
  constructor(tables: string[]) {
    super(`the target already holds rows (${tables.join(', ')}): copy into an empty database, or pass --resume to finish an interrupted copy`);
    this.tables = tables;
  }
}

/** Our tables, parents before children (SQLite's catalogue; kysely's own and SQLite's left out). */
export function tablesInOrder(source: BetterSqlite3.Database): string[] {
  const names = (source.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'kysely\\_%' ESCAPE '\\' ORDER BY name").all() as { name: string }[]).map((row) => row.name);
  const parents = new Map(names.map((name) => [name, (source.prepare(`PRAGMA foreign_key_list("${name}")`).all() as { table: string }[]).map((fk) => fk.table).filter((p) => p !== name)]));
  const ordered: string[] = [];
  const visit = (name: string, path: Set<string>) => {
    if (ordered.includes(name) || path.has(name)) return;
    path.add(name);
    for (const parent of parents.get(name) ?? []) visit(parent, path);
    ordered.push(name);
  };
  for (const name of names) visit(name, new Set());
  return ordered.filter((name) => !NOT_DATA.has(name));
}

async function countOf(target: Kysely<any>, table: string): Promise<number> {
  const row = await target.selectFrom(table).select((eb) => eb.fn.countAll<string | number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Move each identity/serial sequence of `table` past the largest id copied. */
async function advanceSequence(target: Kysely<any>, table: string): Promise<void> {
  const { rows } = await sql<{ seq: string | null }>`SELECT pg_get_serial_sequence(${table}, 'id') AS seq`.execute(target).catch(() => ({ rows: [] as { seq: string | null }[] }));
  const seq = rows[0]?.seq;
  if (!seq) return;
  await sql`SELECT setval(${seq}::regclass, COALESCE((SELECT MAX(id) FROM ${sql.table(table)}), 1), (SELECT MAX(id) IS NOT NULL FROM ${sql.table(table)}))`.execute(target);
}

/** The target's columns of `table`, with the element type each array parameter is cast to. */
async function columnsOf(target: Kysely<any>, table: string): Promise<{ name: string; type: string }[]> {
  const { rows } = await sql<{ name: string; type: string }>`SELECT column_name AS name, udt_name AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`.execute(target);
  return rows;
}

/**
 * Insert `rows` as one statement with one array parameter per column (`INSERT ... SELECT FROM
 * unnest(...)`): a handful of bind parameters whatever the batch size, about ten times faster
 * than a VALUES list of the same rows, and no extra dependency for COPY.
 */
function insertBatch(target: Kysely<any>, table: string, columns: { name: string; type: string }[], rows: Record<string, unknown>[]) {
  const arrays = columns.map(({ name, type }) => sql`${rows.map((row) => row[name] ?? null)}::${sql.raw(`"${type}"`)}[]`);
  const names = sql.join(columns.map(({ name }) => sql.ref(name)));
  return sql`INSERT INTO ${sql.table(table)} (${names}) SELECT * FROM unnest(${sql.join(arrays)}) ON CONFLICT DO NOTHING`.execute(target);
}

async function copyTable(source: BetterSqlite3.Database, target: Kysely<any>, table: string, total: number, options: CopyOptions): Promise<void> {
  const sourceColumns = new Set((source.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name));
  const columns = (await columnsOf(target, table)).filter((c) => sourceColumns.has(c.name));
  let batch: Record<string, unknown>[] = [];
  let done = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await insertBatch(target, table, columns, batch);
    done += batch.length;
    batch = [];
    options.onProgress?.(table, done, total);
  };
  // rowid order: stable, so progress and a resumed copy walk the same sequence.
  for (const row of source.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).iterate() as IterableIterator<Record<string, unknown>>) {
    batch.push(row);
    if (batch.length >= BATCH_ROWS) await flush();
  }
  await flush();
}

/**
 * Copy every table of the SQLite file at `sqlitePath` into `target` (a migrated PostgreSQL
 * database of the same schema version: the caller migrates both first). Returns the counts of
 * both sides per table; the caller decides what a difference means.
 */
export async function copySqliteTo(sqlitePath: string, target: Kysely<any>, options: CopyOptions = {}): Promise<TableCopy[]> {
  const source = new BetterSqlite3(sqlitePath, { readonly: true, fileMustExist: true });
  try {
    const tables = tablesInOrder(source);
    // Every row below is read inside this one transaction: one snapshot of the whole file.
    source.prepare('BEGIN').run();
    const counts = new Map(tables.map((table) => [table, (source.prepare(`SELECT COUNT(*) AS n FROM "${table}"`).get() as { n: number }).n]));
    if (!options.resume) {
      const holding = [];
      for (const table of tables) if ((await countOf(target, table)) > 0) holding.push(table);
      if (holding.length > 0) throw new TargetNotEmpty(holding);
    }
    const result: TableCopy[] = [];
    for (const table of tables) {
      const total = counts.get(table)!;
      await copyTable(source, target, table, total, options);
      await advanceSequence(target, table);
      result.push({ table, source: total, target: await countOf(target, table) });
    }
    source.prepare('COMMIT').run();
    return result;
  } finally {
    source.close();
  }
}
