/**
 * What the console's inbox reads: contact submissions newest first, filtered by priority,
 * delivery state (from the contact feature's delivery log, contact_delivery) and spam, searched
 * by name or e-mail (case-insensitive substring), one page at a time. Both engines: LIKE with an
 * escape character, lower() on both sides, EXISTS over the delivery log.
 */
import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { DbHandle } from '../../db/create-db.ts';
import type { ContactSubmissionRow, Database } from '../../db/schema.ts';
import { deliverySummaries, type DeliverySummary } from '../contact/deliveries.server.ts';

type Db = Kysely<Database>;

export const PAGE_SIZE = 25;
export const PRIORITIES = ['high', 'standard', 'message'] as const;
/** A submission's deliveries in one word, as deliverySummaries says it. */
export const DELIVERY_STATES = ['none', 'pending', 'delivered', 'failed'] as const;
/** `''` (the default): not spam; `spam`: only spam; `all`: both. */
export const SPAM_FILTERS = ['spam', 'all'] as const;

export interface InboxFilter {
  priority?: (typeof PRIORITIES)[number] | undefined;
  delivery?: (typeof DELIVERY_STATES)[number] | undefined;
  spam?: (typeof SPAM_FILTERS)[number] | undefined;
  /** Name or e-mail contains this (case-insensitive). */
  q?: string | undefined;
  /** 1-based. */
  page: number;
}

/** The filter a query string asks for; anything unknown is ignored, never an error. */
export function filterOf(params: URLSearchParams): InboxFilter {
  const pick = <T extends string>(values: readonly T[], value: string | null) => (values.includes(value as T) ? (value as T) : undefined);
  const q = (params.get('q') ?? '').trim().slice(0, 200);
  const page = Number(params.get('page') ?? '1');
  return {
    priority: pick(PRIORITIES, params.get('priority')),
    delivery: pick(DELIVERY_STATES, params.get('delivery')),
    spam: pick(SPAM_FILTERS, params.get('spam')),
    q: q === '' ? undefined : q,
    page: Number.isSafeInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
  };
}

/** `%` and `_` are wildcards of LIKE; a search for them means the characters. */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

type Eb = ExpressionBuilder<Database, 'contact_submission'>;

/** Some delivery of the submission is in one of `states`. */
const hasDelivery = (eb: Eb, states: ReadonlyArray<'pending' | 'delivered' | 'failed'>) =>
  eb.exists(eb.selectFrom('contact_delivery as d').select('d.id').whereRef('d.submission_id', '=', 'contact_submission.id').where('d.state', 'in', [...states]));

/** The same four words as deliverySummaries, as a condition. */
function deliveryIs(eb: Eb, state: (typeof DELIVERY_STATES)[number]) {
  switch (state) {
    case 'pending':
      return eb.or([eb('delivery_status', '=', 'pending'), hasDelivery(eb, ['pending'])]);
    case 'failed':
      return eb.and([eb('delivery_status', '!=', 'pending'), eb.not(hasDelivery(eb, ['pending'])), hasDelivery(eb, ['failed'])]);
    case 'delivered':
      return eb.and([eb('delivery_status', '!=', 'pending'), eb.not(hasDelivery(eb, ['pending', 'failed'])), hasDelivery(eb, ['delivered'])]);
    case 'none':
      return eb.and([eb('delivery_status', '!=', 'pending'), eb.not(hasDelivery(eb, ['pending', 'failed', 'delivered']))]);
  }
}

export interface InboxRow extends ContactSubmissionRow {
  delivery: DeliverySummary['status'];
}

export interface InboxPage {
  rows: InboxRow[];
  /** Whether another page follows. */
  more: boolean;
}

export async function inboxPage(db: DbHandle, filter: InboxFilter): Promise<InboxPage> {
  let query = db.kysely.selectFrom('contact_submission').selectAll();
  if (filter.priority) query = query.where('priority', '=', filter.priority);
  if (filter.delivery) {
    const state = filter.delivery;
    query = query.where((eb) => deliveryIs(eb, state));
  }
  if (filter.spam === undefined) query = query.where('spam_reason', 'is', null);
  else if (filter.spam === 'spam') query = query.where('spam_reason', 'is not', null);
  if (filter.q) {
    const pattern = likePattern(filter.q);
    query = query.where((eb) => eb.or([eb(sql`lower(name)`, 'like', sql`${pattern} escape '\\'`), eb(sql`lower(work_email)`, 'like', sql`${pattern} escape '\\'`)]));
  }
  // One more than a page tells whether there is a next one, without a count(*).
  const found = await query
    .orderBy('id', 'desc')
    .limit(PAGE_SIZE + 1)
    .offset((filter.page - 1) * PAGE_SIZE)
    .execute();
  const rows = found.slice(0, PAGE_SIZE).map((row) => ({ ...row, id: Number(row.id) }));
  const summaries = await deliverySummaries(db, rows);
  return { rows: rows.map((row) => ({ ...row, delivery: summaries.get(row.id)?.status ?? 'none' })), more: found.length > PAGE_SIZE };
}

export async function submission(db: Db, id: number): Promise<ContactSubmissionRow | undefined> {
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  return db.selectFrom('contact_submission').selectAll().where('id', '=', id).executeTakeFirst();
}
