/**
 * What a database failure means for its caller, for both engines: whether it is the storage
 * being unavailable (answer 502/503 and try later) or a bug (500), and whether it says writes
 * cannot currently succeed (the instance is then not ready, see DbHandle.ping).
 */

/** Work handed a deadline (`DbHandle.within`, deadline.ts) that did not finish, or was refused, past it. */
export class DeadlineExceeded extends Error {
  override name = 'DeadlineExceeded';
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * SQLite extended result codes as better-sqlite3 names them (https://sqlite.org/rescode.html),
 * PostgreSQL SQLSTATEs (Appendix A of its manual): the database cannot store anything just now.
 * READONLY and FULL are families: SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE and so on.
 */
const SQLITE_WRITE_FAILURES = /^SQLITE_(READONLY|FULL|IOERR|CANTOPEN)/;
const PG_WRITE_FAILURES = new Set([
  '53100', // disk_full
  '25006', // read_only_sql_transaction
  '58030', // io_error
]);

/** The failure says writes cannot succeed until an operator acts (disk full, read-only, I/O). */
export function isWriteFailure(error: unknown): boolean {
  const code = codeOf(error);
  if (code === undefined) return false;
  return SQLITE_WRITE_FAILURES.test(code) || PG_WRITE_FAILURES.has(code);
}

/** SQLITE_BUSY (another connection holds the lock); retrying later may succeed. */
export function isSqliteBusy(error: unknown): boolean {
  const code = codeOf(error);
  // BUSY_SNAPSHOT cannot succeed by retrying the statement: its read snapshot is stale.
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_RECOVERY' || code === 'SQLITE_BUSY_TIMEOUT';
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * The storage is unreachable, overloaded, locked, full or read-only, as opposed to a query that
 * is wrong. PostgreSQL classes: 08 connection exception, 53 insufficient resources, 57 operator
 * intervention (57014 is a statement_timeout cancel), 55000/55P03 (database not accepting
 * connections, lock not available), 3D000 (the database was dropped), 25006 (read-only).
 */
export function isStorageUnavailable(error: unknown): boolean {
  // By name, not instanceof: the Astro build bundles its own copy of this module beside the
  // one the server entry loads, so the class a route sees is not the class the data layer threw.
  if (error instanceof Error && error.name === 'DeadlineExceeded') return true;
  const code = codeOf(error);
  if (code !== undefined) {
    if (NETWORK_CODES.has(code) || isWriteFailure(error) || isSqliteBusy(error)) return true;
    if (code.startsWith('SQLITE_')) return /^SQLITE_(BUSY|LOCKED|PROTOCOL|NOMEM)/.test(code);
    if (/^(08|53|57)/.test(code) || ['55000', '55P03', '3D000', '25006'].includes(code)) return true;
  }
  // node-postgres reports lost connections and its own timeouts as plain Errors.
  const message = error instanceof Error ? error.message : '';
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection timeout/i.test(message);
}
