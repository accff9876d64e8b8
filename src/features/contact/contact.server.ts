/**
 * Contact submissions in the database: the durable insert behind `POST /api/contact`, with
 * Idempotency-Key replay, and the reads behind the CSV export. Works on both engines.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { CompiledQuery, sql, type Kysely, type Transaction } from 'kysely';
import type { DbHandle } from '../../db/create-db.ts';
import { Deadline } from '../../db/deadline.ts';
import { DeadlineExceeded } from '../../db/storage-errors.ts';
import type { ContactSubmissionRow, Database, NewContactSubmission } from '../../db/schema.ts';
import { csvRecord, csvStringifyOptions, type CsvOptions } from './contact-csv.ts';
import { deliverySummaries } from './deliveries.server.ts';
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
  /** A delivery channel (webhook, e-mail) is configured: queue the submission for the outbox (status `pending`). */
  deliver?: boolean;
  /** The former name of `deliver` (when only the webhook existed), still read so callers written for it keep working. */
  webhookEnabled?: boolean;
  /** Judged spam (spam.ts): stored with this reason and never queued for delivery. */
  spamReason?: string | undefined;
  /** Epoch ms of the submission; now by default. */
  now?: number;
  /**
   * The request's deadline (src/db/deadline.ts), handed down to the statement: waits for a lock,
   * the writer's turn or a pooled connection end there, and the store then fails having stored
   * nothing instead of committing after the caller has given up on it. Without one, 4 s from the call.
   */
  deadline?: Deadline;
}

export interface StoreResult {
  id: number;
  /** True when the key had been stored before: nothing new was written. */
  replayed: boolean;
}

type Queryable = Kysely<Database> | Transaction<Database>;

/**
 * How much earlier than the store's deadline PostgreSQL cancels a statement itself, so that a
 * lock wait ends with the server's own account of it rather than with our deadline.
 */
const STATEMENT_MARGIN_MS = 100;

/** The store's deadline when the caller gives none (jobs, tests). */
const DEFAULT_DEADLINE_MS = 4_000;

type SubmissionRow = NewContactSubmission & SubmissionContent;

/** A submission waiting for its group's transaction. */
interface Pending {
  row: SubmissionRow;
  key: string | null;
  /** By when it must be committed, or not at all. */
  deadline: Deadline;
  complete: (outcome: Outcome) => void;
}
type Outcome = { ok: true; result: StoreResult } | { ok: false; error: unknown };

/** Submissions that arrived in the current event-loop turn, per database, committed together. */
const waiting = new WeakMap<DbHandle, Pending[]>();

/**
 * Insert one submission and resolve only once it is committed: SQLite in WAL mode commits
 * durably against a process kill (synchronous=NORMAL; FULL also against power loss), PostgreSQL
 * on COMMIT. Throws IdempotencyKeyReused for a key stored with other content; any other throw
 * means nothing was stored.
 *
 * Group commit: submissions that arrive in the same event-loop turn (requests parsed in one poll
 * phase) are inserted in one transaction, started on `setImmediate`, so a burst pays one writer
 * turn and one commit instead of one each (bench/NOTES.md). Each promise still settles only after
 * the transaction holding its row committed. If the group fails before COMMIT (one bad row aborts
 * the transaction), nothing of it was stored and every submission is tried again on its own, so
 * one bad row fails only itself; if COMMIT itself fails or the deadline passes, all of them fail
 * (502), as a lone submission would, rather than risk storing one twice.
 */
export function storeSubmission(db: DbHandle, payload: ContactPayload, options: StoreOptions): Promise<StoreResult> {
  const now = options.now ?? Date.now();
  const key = options.idempotencyKey ?? null;
  const queued = (options.deliver ?? options.webhookEnabled ?? false) && options.spamReason === undefined;
  const row: SubmissionRow = {
    ...submissionContent(payload),
    created_at: now,
    idempotency_key: key,
    delivery_status: queued ? 'pending' : 'none',
    next_attempt_at: queued ? now : null,
    // Only on spam: the usual row keeps the usual column list, and so its prepared statement.
    ...(options.spamReason === undefined ? {} : { spam_reason: options.spamReason }),
  };
  const deadline = options.deadline ?? Deadline.after(DEFAULT_DEADLINE_MS);
  return new Promise<StoreResult>((resolve, reject) => {
    const complete = (outcome: Outcome) => {
      // A deadline of our own has a timer of our own.
      if (deadline !== options.deadline) deadline.dispose();
      if (outcome.ok) resolve(outcome.result);
      else reject(outcome.error);
    };
    let queue = waiting.get(db);
    if (queue === undefined) {
      queue = [];
      waiting.set(db, queue);
      setImmediate(() => {
        waiting.delete(db);
        void flush(db, queue!);
      });
    }
    queue.push({ row, key, deadline, complete });
  });
}

async function flush(db: DbHandle, group: Pending[]): Promise<void> {
  if (group.length === 1) return storeAlone(db, group[0]!);
  let reachedCommit = false;
  let outcomes: Outcome[];
  try {
    const earliest = group.reduce((first, p) => (p.deadline.at < first.at ? p.deadline : first), group[0]!.deadline);
    outcomes = await inTransaction(db, earliest, async (trx) => {
      const results: Outcome[] = [];
      for (const pending of group) {
        try {
          results.push({ ok: true, result: await insertOrReplay(trx, db.engine, pending.row, pending.key) });
        } catch (error) {
          // A reused key stores nothing and aborts nothing: the verdict stands whatever the others do.
          if (!(error instanceof IdempotencyKeyReused)) throw error;
          results.push({ ok: false, error });
        }
      }
      reachedCommit = true;
      return results;
    });
  } catch (error) {
    if (reachedCommit || error instanceof DeadlineExceeded) {
      for (const pending of group) pending.complete({ ok: false, error });
      return;
    }
    // Rolled back before COMMIT: nothing of the group is stored; each on its own, so a bad row fails alone.
    await Promise.all(group.map((pending) => storeAlone(db, pending)));
    return;
  }
  group.forEach((pending, i) => pending.complete(outcomes[i]!));
}

async function storeAlone(db: DbHandle, pending: Pending): Promise<void> {
  try {
    const result =
      db.engine === 'sqlite'
        ? // One statement, so no transaction: the driver waits for the write lock on timers, never
          // on the event loop, and never starts the insert after the deadline.
          await db.within(pending.deadline, (kysely) => insertOrReplay(kysely, db.engine, pending.row, pending.key))
        : await inTransaction(db, pending.deadline, (trx) => insertOrReplay(trx, db.engine, pending.row, pending.key));
    pending.complete({ ok: true, result });
  } catch (error) {
    pending.complete({ ok: false, error });
  }
}

/** `work` in one transaction that commits by `deadline` or not at all (DbHandle.within). */
function inTransaction<T>(db: DbHandle, deadline: Deadline, work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
  return db.within(deadline, (kysely) =>
    kysely.transaction().execute(async (trx) => {
      if (db.engine === 'postgres') {
        // What is left of the deadline after waiting for a pooled connection, less a margin for
        // the round trip, scoped to this transaction (SET LOCAL): the server cancels an insert
        // stuck behind a lock itself, and reports why, before the deadline; the data layer
        // refuses the COMMIT past the deadline, so a submission we answered 502 for cannot
        // commit later when the lock is finally released.
        const left = Math.max(1, deadline.remainingMs() - STATEMENT_MARGIN_MS);
        await sql`select set_config('statement_timeout', ${String(left)}, true)`.execute(trx);
      }
      return work(trx);
    }),
  );
}

/**
 * The insert's SQL per engine and column list, built once: the query builder cost a fifth of a
 * submission (bench/NOTES.md). Keyed by the columns the row carries, so a new field cannot be
 * dropped by a stale statement.
 */
const insertSql = new Map<string, string>();

function insertStatement(db: Queryable, engine: DbHandle['engine'], row: SubmissionRow): CompiledQuery<{ id: number | bigint }> {
  const columns = Object.keys(row) as Array<keyof SubmissionRow>;
  const shape = `${engine}:${columns.join(',')}`;
  let text = insertSql.get(shape);
  if (text === undefined) {
    text = db
      .insertInto('contact_submission')
      .values(row)
      .onConflict((oc) => oc.column('idempotency_key').doNothing())
      .returning('id')
      .compile().sql;
    insertSql.set(shape, text);
  }
  return CompiledQuery.raw(text, columns.map((column) => row[column] ?? null)) as CompiledQuery<{ id: number | bigint }>;
}

async function insertOrReplay(db: Queryable, engine: DbHandle['engine'], row: SubmissionRow, key: string | null): Promise<StoreResult> {
  // ON CONFLICT DO NOTHING on the unique key makes concurrent retries safe: one inserts, the
  // others wait for its commit (PostgreSQL) or run after it (SQLite's single writer), then read it.
  // NULL keys never conflict, so submissions without a key always insert.
  const [inserted] = (await db.executeQuery(insertStatement(db, engine, row))).rows;
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
  /** Only spam (true) or only the rest (false); both when unset. */
  spam?: boolean | undefined;
  /** Keyset paging: only ids greater than this. */
  afterId?: number | undefined;
  /** At most this many rows. */
  limit?: number | undefined;
}

/** Submissions in the order they arrived (id order), oldest first. */
export async function listSubmissions(db: DbHandle, options: ListOptions = {}): Promise<ContactSubmissionRow[]> {
  let query = db.kysely.selectFrom('contact_submission').selectAll().orderBy('id');
  if (options.since !== undefined) query = query.where('created_at', '>=', options.since);
  if (options.spam !== undefined) query = query.where('spam_reason', options.spam ? 'is not' : 'is', null);
  if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
  if (options.limit !== undefined) query = query.limit(options.limit);
  const rows = await query.execute();
  return rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/** Every matching submission, in pages, so an export never holds the table in memory. */
export async function* iterateSubmissions(db: DbHandle, options: Pick<ListOptions, 'since' | 'spam'> & { pageSize?: number } = {}): AsyncGenerator<ContactSubmissionRow[]> {
  const pageSize = options.pageSize ?? 500;
  let afterId: number | undefined;
  for (;;) {
    const page = await listSubmissions(db, { since: options.since, spam: options.spam, afterId, limit: pageSize });
    yield page;
    if (page.length < pageSize) return;
    afterId = page.at(-1)!.id;
  }
}

/**
 * Write matching submissions as CSV (see contact-csv.ts) to `out`; resolves with the row count.
 * `spam`: only spam when true; without it, spam is left out (export everything with both runs).
 */
export async function writeSubmissionsCsv(
  db: DbHandle,
  out: NodeJS.WritableStream,
  options: CsvOptions & { since?: number | undefined; spam?: boolean | undefined } = {},
): Promise<{ rows: number }> {
  let rows = 0;
  async function* records() {
    for await (const page of iterateSubmissions(db, { since: options.since, spam: options.spam ?? false })) {
      const deliveries = await deliverySummaries(db, page);
      for (const row of page) {
        rows += 1;
        yield csvRecord(row, deliveries.get(row.id)!);
      }
    }
  }
  await pipeline(Readable.from(records()), stringify(csvStringifyOptions(options)), out, { end: false });
  return { rows };
}
