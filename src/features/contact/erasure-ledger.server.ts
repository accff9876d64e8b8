/**
 * The erasure ledger: an append-only file that remembers every `contact:erase` (GDPR art. 17) so
 * that restoring a backup taken before an erasure erases that person again (the restore replays
 * it, src/features/backup/restore.server.ts). It lives outside the database on purpose: losing or
 * replacing the database must not take the record of erasures with it.
 *
 * It holds no personal data in clear: one header line with a random salt, then one line per
 * erasure, `{"at": epoch ms, "hmac": HMAC-SHA256(salt, lower-cased address)}` (RFC 2104). The
 * salt makes every ledger's digests its own, so no precomputed table of addresses matches them;
 * like any pseudonym, a digest can still be confirmed by someone who already knows the address.
 *
 * Each line is one write(2) in append mode, then fsync(2) (and the directory's, when the file was
 * just created), before the erasure deletes anything: an erasure that reported success is on disk.
 * A replay re-erases only submissions made at or before an erasure's `at`, so a person who wrote
 * again after being erased keeps that later submission.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { DbHandle } from '../../db/create-db.ts';
import { engineOf, sqlitePath } from '../../db/database-url.ts';

/** Where the ledger lives when ERASURE_LEDGER is unset on PostgreSQL (see docs/operators.md). */
export const DEFAULT_POSTGRES_LEDGER = './data/erasure-ledger.ndjson';

/**
 * The ledger of a database: ERASURE_LEDGER when set; for SQLite, a file beside (not inside) the
 * database file; for PostgreSQL, DEFAULT_POSTGRES_LEDGER on the host that runs the commands.
 * None for `:memory:`, which no backup outlives.
 */
export function erasureLedgerPath(databaseUrl: string, configured?: string): string | undefined {
  if (configured !== undefined) return configured;
  if (engineOf(databaseUrl) === 'postgres') return DEFAULT_POSTGRES_LEDGER;
  const path = sqlitePath(databaseUrl);
  return path === ':memory:' ? undefined : `${path}.erasure-ledger`;
}

const Header = z.object({ ledger: z.literal('contact-erasures'), version: z.literal(1), salt: z.string().min(16) });
const Entry = z.object({ at: z.number().int().nonnegative(), hmac: z.string().regex(/^[0-9a-f]{64}$/) });

const normalise = (email: string) => email.trim().toLowerCase();
const digest = (salt: string, email: string) => createHmac('sha256', Buffer.from(salt, 'base64')).update(normalise(email)).digest('hex');

async function syncDirectory(path: string): Promise<void> {
  const dir = await open(dirname(path), constants.O_RDONLY);
  try {
    await dir.sync();
  } finally {
    await dir.close();
  }
}

/** The ledger's salt, creating the file with its header line when there is none yet. */
async function saltOf(path: string): Promise<string> {
  try {
    const created = await open(path, 'wx', 0o600);
    const salt = randomBytes(18).toString('base64');
    try {
      await created.write(`${JSON.stringify({ ledger: 'contact-erasures', version: 1, salt })}\n`);
      await created.sync();
    } finally {
      await created.close();
    }
    await syncDirectory(path);
    return salt;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const first = (await readFile(path, 'utf8')).split('\n', 1)[0] ?? '';
  const header = Header.safeParse(safeJson(first));
  if (!header.success) throw new Error(`${path} is not an erasure ledger (its first line is not the ledger's header)`);
  return header.data.salt;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Record the erasure of `email` at `at` (epoch ms) durably; throws if it could not be written. */
export async function appendErasure(path: string, email: string, at: number): Promise<void> {
  const salt = await saltOf(path);
  const file = await open(path, 'a');
  try {
    await file.write(`${JSON.stringify({ at, hmac: digest(salt, email) })}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
}

export interface Ledger {
  salt: string;
  /** Digest -> the latest erasure's instant. */
  erasures: Map<string, number>;
  /** Lines that could not be read (a torn last line after a crash), skipped. */
  unreadable: number;
}

/** Read the ledger; undefined when there is no file (no erasure was ever recorded). */
export async function readLedger(path: string): Promise<Ledger | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const [first = '', ...lines] = text.split('\n');
  const header = Header.safeParse(safeJson(first));
  if (!header.success) throw new Error(`${path} is not an erasure ledger (its first line is not the ledger's header)`);
  const ledger: Ledger = { salt: header.data.salt, erasures: new Map(), unreadable: 0 };
  for (const line of lines) {
    if (line === '') continue;
    const entry = Entry.safeParse(safeJson(line));
    if (!entry.success) {
      ledger.unreadable += 1;
      continue;
    }
    ledger.erasures.set(entry.data.hmac, Math.max(entry.data.at, ledger.erasures.get(entry.data.hmac) ?? 0));
  }
  return ledger;
}

export interface ReplayResult {
  /** Erasures the ledger holds. */
  erasures: number;
  /** Submissions deleted again. */
  submissions: number;
  unreadable: number;
}

/**
 * Re-apply every erasure of the ledger to `db`: delete each submission whose address matches an
 * erasure and which was made at or before it. Reads the submissions in pages by id (addresses
 * are compared by digest, so they are read, hashed and dropped); deletes in batches.
 */
export async function replayErasures(db: DbHandle, ledger: Ledger, pageSize = 1_000): Promise<ReplayResult> {
  const result: ReplayResult = { erasures: ledger.erasures.size, submissions: 0, unreadable: ledger.unreadable };
  if (ledger.erasures.size === 0) return result;
  let after = 0;
  for (;;) {
    const page = await db.kysely.selectFrom('contact_submission').select(['id', 'work_email', 'created_at']).where('id', '>', after).orderBy('id').limit(pageSize).execute();
    const doomed = page.filter((row) => {
      const at = ledger.erasures.get(digest(ledger.salt, row.work_email));
      return at !== undefined && row.created_at <= at;
    });
    if (doomed.length > 0) {
      const deleted = await db.kysely.deleteFrom('contact_submission').where('id', 'in', doomed.map((row) => row.id)).executeTakeFirst();
      result.submissions += Number(deleted.numDeletedRows);
    }
    if (page.length < pageSize) return result;
    after = page.at(-1)!.id;
  }
}
