/**
 * Contact submissions in the database: the durable insert behind `POST /api/contact`, with
 * Idempotency-Key replay, and the reads behind the CSV export. Works on both engines.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { DbHandle } from '../../db/create-db.ts';
import type { ContactSubmissionRow, Database, NewContactSubmission } from '../../db/schema.ts';
import { csvRecord, csvStringifyOptions, type CsvOptions } from './contact-csv.ts';
import { sameContent, submissionContent, type ContactPayload, type SubmissionContent } from './contact.ts';

/**
 * The Idempotency-Key was used before for a submission with different content. The draft
 * (draft-ietf-httpapi-idempotency-key-header section 2.7) asks for 422 here; the handler maps it.
 */
export class IdempotencyKeyReused extends Error {
  override name = 'IdempotencyKeyReused';
  readonly key: string;
  constructor(key: string) {
    super('The Idempotency-Key was already used for a different submission');
    this.key = key;
  }
}

export interface StoreOptions {
  /** From the Idempotency-Key header: the same key stores once. */
  idempotencyKey?: string | undefined;
  /** A webhook is configured: queue the submission for the outbox (status `pending`). */
  webhookEnabled: boolean;
  /** Epoch ms of the submission; now by default. */
  now?: number;
  /**
   * Deadline of the store, in ms from the call: waits for a lock or a pooled connection end
   * there, and the store then fails having stored nothing (DbHandle.withDeadline) instead of
   * committing after the caller has given up on it.
   */
  lockTimeoutMs?: number;
}

export interface StoreResult {
  id: number;
  /** True when the key had been stored before: nothing new was written. */
  replayed: boolean;
}

type Queryable = Kysely<Database> | Transaction<Database>;

/** How much earlier than the store's deadline PostgreSQL cancels a statement itself. */
const STATEMENT_MARGIN_MS = 100;

/**
 * Insert one submission and resolve only once it is committed: SQLite in WAL mode commits
 * durably against a process kill (synchronous=NORMAL; FULL also against power loss), PostgreSQL
 * on COMMIT. Throws IdempotencyKeyReused for a key stored with other content; any other throw
 * means nothing was stored.
 */
export async function storeSubmission(handle: DbHandle, payload: ContactPayload, options: StoreOptions): Promise<StoreResult> {
  const now = options.now ?? Date.now();
  const content = submissionContent(payload);
  const key = options.idempotencyKey ?? null;
  const row: NewContactSubmission & SubmissionContent = {
    ...content,
    created_at: now,
    idempotency_key: key,
    delivery_status: options.webhookEnabled ? 'pending' : 'none',
    next_attempt_at: options.webhookEnabled ? now : null,
  };
  const deadlineMs = Math.max(1, Math.round(options.lockTimeoutMs ?? 4_000));

  return handle.withDeadline(deadlineMs, () => {
    if (handle.engine === 'sqlite') {
      // One statement, so no transaction: the driver waits for the write lock on timers, never
      // on the event loop, and never starts the insert after the deadline.
      return insertOrReplay(handle.db, row, key);
    }
    return handle.db.transaction().execute(async (trx) => {
      // What is left of the deadline after waiting for a pooled connection, less a margin for
      // the round trip, scoped to this transaction (SET LOCAL): the server cancels an insert
      // stuck behind a lock itself, and reports why, before the deadline; the data layer
      // refuses the COMMIT past the deadline, so a submission we answered 502 for cannot
      // commit later when the lock is finally released.
      const left = Math.max(1, (handle.remainingMs() ?? deadlineMs) - STATEMENT_MARGIN_MS);
      await sql`select set_config('statement_timeout', ${String(left)}, true)`.execute(trx);
      return insertOrReplay(trx, row, key);
    });
  });
}

async function insertOrReplay(db: Queryable, row: NewContactSubmission & SubmissionContent, key: string | null): Promise<StoreResult> {
  // ON CONFLICT DO NOTHING on the unique key makes concurrent retries safe: one inserts, the
  // others wait for its commit (PostgreSQL) or run after it (SQLite's single writer), then read it.
  // NULL keys never conflict, so submissions without a key always insert.
  const inserted = await db
    .insertInto('contact_submission')
    .values(row)
    .onConflict((oc) => oc.column('idempotency_key').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (inserted) return { id: Number(inserted.id), replayed: false };

  const existing = await db
    .selectFrom('contact_submission')
    .select(['id', 'name', 'job_title', 'work_email', 'priority', 'message'])
    .where('idempotency_key', '=', key)
    .executeTakeFirstOrThrow();
  if (key === null || !sameContent(existing, row)) throw new IdempotencyKeyReused(key ?? '');
  return { id: Number(existing.id), replayed: true };
}

export interface ListOptions {
  /** Only submissions made at or after this instant (epoch ms). */
  since?: number | undefined;
  /** Keyset paging: only ids greater than this. */
  afterId?: number | undefined;
  /** At most this many rows. */
  limit?: number | undefined;
}

/** Submissions in the order they arrived (id order), oldest first. */
export async function listSubmissions(handle: DbHandle, options: ListOptions = {}): Promise<ContactSubmissionRow[]> {
  let query = handle.db.selectFrom('contact_submission').selectAll().orderBy('id');
  if (options.since !== undefined) query = query.where('created_at', '>=', options.since);
  if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
  if (options.limit !== undefined) query = query.limit(options.limit);
  const rows = await query.execute();
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** Every matching submission, a page at a time, so an export never holds the table in memory. */
export async function* iterateSubmissions(handle: DbHandle, options: { since?: number | undefined; pageSize?: number } = {}): AsyncGenerator<ContactSubmissionRow> {
  const pageSize = options.pageSize ?? 500;
  let afterId: number | undefined;
  for (;;) {
    const page = await listSubmissions(handle, { since: options.since, afterId, limit: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    afterId = page.at(-1)!.id;
  }
}

/** Write matching submissions as CSV (see contact-csv.ts) to `out`; resolves with the row count. */
export async function writeSubmissionsCsv(
  handle: DbHandle,
  out: NodeJS.WritableStream,
  options: CsvOptions & { since?: number | undefined } = {},
): Promise<{ rows: number }> {
  let rows = 0;
  async function* records() {
    for await (const row of iterateSubmissions(handle, { since: options.since })) {
      rows += 1;
      yield csvRecord(row);
    }
  }
  await pipeline(Readable.from(records()), stringify(csvStringifyOptions(options)), out, { end: false });
  return { rows };
}
