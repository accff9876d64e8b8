/**
 * Exit statuses from sysexits(3), and the one classification of a failure that stops a process:
 * used by the server's start-up (src/app/main.ts) and by every command (jobs/cli/run-cli.ts), so
 * the same database problem exits with the same status whichever process met it. A supervisor
 * or a script can then tell a mistake a retry will not fix (64, 78) from an outage (69) or a
 * passing contention (75).
 */
import { isSqliteBusy } from '../db/storage-errors.ts';
import { DatabaseOpenError } from '../db/database-open-error.ts';
import { redactUrl } from '../lib/redact-url.ts';

export const EX_USAGE = 64;
export const EX_DATAERR = 65;
export const EX_NOINPUT = 66;
export const EX_UNAVAILABLE = 69;
export const EX_SOFTWARE = 70;
export const EX_CANTCREAT = 73;
export const EX_TEMPFAIL = 75;
export const EX_NOPERM = 77;
export const EX_CONFIG = 78;

export interface Failure {
  exitCode: number;
  /** The one line for stderr, without the process's own prefix. */
  line: string;
  /** An unexpected failure: show the stack too. */
  unexpected?: boolean;
}

/** The error and its causes (AggregateError members included), nearest first, bounded. */
export function chainOf(error: unknown): Array<Error & { code?: unknown; syscall?: unknown }> {
  const chain: Array<Error & { code?: unknown }> = [];
  const queue: unknown[] = [error];
  while (queue.length > 0 && chain.length < 16) {
    const next = queue.shift();
    if (!(next instanceof Error)) continue;
    chain.push(next);
    if (next instanceof AggregateError) queue.push(...next.errors);
    if (next.cause !== undefined) queue.push(next.cause);
  }
  return chain;
}

export function firstLine(text: string): string {
  return text.split('\n')[0]!.trim(); // split always yields one item
}

/** The innermost non-empty message: the driver's own words, without our wrapping. */
export function lastMessage(chain: Error[]): string {
  for (let i = chain.length - 1; i >= 0; i--) {
    const message = firstLine(chain[i]!.message); // i within bounds
    if (message !== '') return message;
  }
  return '';
}

const NETWORK = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'ECONNRESET', '57P03'];

/**
 * A failure of opening, migrating or using the database named by `databaseUrl`, classified:
 *   78 the SQLite file cannot be used, or PostgreSQL refuses the credentials (class 28) or has
 *      no such database (3D000): fix DATABASE_URL
 *   69 the server cannot be reached (refused, unknown host, timeout; 57P03 cannot connect now)
 *   75 a lock held past its budget: SQLITE_BUSY after the driver's retries, PostgreSQL 55P03
 *      lock_not_available (lock_timeout): running again later may succeed
 *   70 anything else; a DatabaseOpenError (a migration's SQL failed) without a stack, since
 *      its message already names the target and the reason.
 */
export function databaseFailure(error: unknown, databaseUrl: string): Failure {
  const chain = chainOf(error);
  const codes = chain.map((e) => (typeof e.code === 'string' ? e.code : '')).filter(Boolean);
  const has = (wanted: readonly string[]) => codes.find((c) => wanted.includes(c));
  const top = chain[0]?.message ? firstLine(chain[0].message) : String(error);
  const where = `DATABASE_URL (${redactUrl(databaseUrl)})`;

  // SQLite: the file cannot be opened or is not a database (better-sqlite3's SqliteError codes).
  const sqlite = has(['SQLITE_CANTOPEN', 'SQLITE_NOTADB', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_IOERR']);
  if (sqlite) return { exitCode: EX_CONFIG, line: `${where} cannot be used as a SQLite database: ${lastMessage(chain)} (${sqlite})` };
  const refused = codes.find((c) => /^28/.test(c) || c === '3D000');
  if (refused) return { exitCode: EX_CONFIG, line: `${where} refused: ${lastMessage(chain)} (${refused})` };
  const network = has(NETWORK);
  const timedOut = chain.some((e) => /timeout exceeded when trying to connect|connection timeout/i.test(e.message));
  if (network || timedOut) {
    return { exitCode: EX_UNAVAILABLE, line: `the database at ${where} cannot be reached: ${lastMessage(chain) || 'no answer'}${network ? ` (${network})` : ''}` };
  }
  const busy = chain.find((e) => isSqliteBusy(e) || e.code === '55P03');
  if (busy) return { exitCode: EX_TEMPFAIL, line: `${where} stayed locked by another connection; try again later: ${lastMessage(chain)} (${String(busy.code)})` };
  const detail = codes[0] === undefined ? '' : ` (${codes[0]})`;
  if (error instanceof DatabaseOpenError) return { exitCode: EX_SOFTWARE, line: `${top}${detail}` };
  return { exitCode: EX_SOFTWARE, line: `${top}${detail}`, unexpected: true };
}
