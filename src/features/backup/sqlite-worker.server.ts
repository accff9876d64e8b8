/**
 * SQLite's online backup (https://sqlite.org/backup.html, better-sqlite3's `db.backup()`) and
 * the read of a backup's contents, in a worker thread: every call into SQLite there is
 * synchronous, and a page copy or an integrity check of a large file takes seconds, which must
 * never be the server's event loop's (the scheduled backup runs inside the server).
 *
 * The copy is made in one step after the first (the progress callback asks for every remaining
 * page): SQLite restarts a stepwise backup whenever another connection writes to the source, so
 * under a steady stream of contact submissions small steps might never finish. One step reads
 * under one read transaction, which in WAL mode does not stop the server's writer; the copy is
 * the database as of that transaction's start, i.e. holds every commit acknowledged before it.
 *
 * The worker's code is a string evaluated in the worker (not a file of its own) because the
 * production server is one bundled module (src/app/server-bundle.ts); better-sqlite3 is resolved
 * here and handed over by absolute path.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export interface SqliteContents {
  /** `PRAGMA integrity_check`'s verdict: `ok`, or its first complaints. */
  integrity: string;
  migrations: string[];
  tables: Record<string, number>;
}

const WORKER = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.module);
function contents(db, integrity) {
  const tables = {};
  for (const { name } of db.prepare("select name from sqlite_master where type = 'table' and name not like 'sqlite\\_%' escape '\\' order by name").all()) {
    tables[name] = db.prepare('select count(*) as n from "' + name.replaceAll('"', '""') + '"').get().n;
  }
  const migrations = tables.kysely_migration === undefined ? [] : db.prepare('select name from kysely_migration order by name').all().map((r) => r.name);
  const verdict = integrity ? db.prepare('pragma integrity_check(20)').all().map((r) => r.integrity_check).join('; ') : 'not checked';
  return { integrity: verdict, migrations, tables };
}
async function main() {
  const { op, source, target } = workerData;
  if (op === 'backup') {
    const src = new SQLite(source, { fileMustExist: true, timeout: 10000 });
    try {
      await src.backup(target, { progress: ({ remainingPages }) => Math.max(100, remainingPages + 100) });
    } finally {
      src.close();
    }
    const copy = new SQLite(target, { timeout: 10000 });
    try {
      // One self-contained file: no -wal/-shm beside the backup, and opening it read-only works.
      copy.pragma('journal_mode = DELETE');
      return contents(copy, false);
    } finally {
      copy.close();
    }
  }
  const db = new SQLite(source, { readonly: true, fileMustExist: true });
  try {
    return contents(db, true);
  } finally {
    db.close();
  }
}
main().then((result) => parentPort.postMessage({ ok: true, result }), (error) => parentPort.postMessage({ ok: false, message: error && error.message, code: error && error.code }));
`;

function runWorker(data: { op: 'backup' | 'inspect'; source: string; target?: string }): Promise<SqliteContents> {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER, { eval: true, workerData: { ...data, module } });
    let settled = false;
    worker.once('message', (message: { ok: true; result: SqliteContents } | { ok: false; message: string; code?: string }) => {
      settled = true;
      if (message.ok) resolve(message.result);
      else reject(Object.assign(new Error(message.message), { code: message.code }));
    });
    worker.once('error', (error) => {
      settled = true;
      reject(error);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the SQLite worker exited with ${code} before answering`));
    });
  });
}

/** Copy the live database at `source` into the new file `target` (online backup); returns what the copy holds. */
export function backupSqliteFile(source: string, target: string): Promise<SqliteContents> {
  return runWorker({ op: 'backup', source, target });
}

/** Open `file` read-only and report its integrity check, migrations and row counts. */
export function inspectSqliteFile(file: string): Promise<SqliteContents> {
  return runWorker({ op: 'inspect', source: file });
}
