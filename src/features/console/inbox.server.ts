/**
 * What the console's inbox reads: contact submissions newest first, filtered by priority,
 * delivery state and spam, searched by name or e-mail (case-insensitive substring), one page at
 * a time. Both engines: LIKE with an escape character, lower() on both sides.
 */
import { sql, type Kysely } from 'kysely';
import type { ContactSubmissionRow, Database } from '../../db/schema.ts';

type Db = Kysely<Database>;

export const PAGE_SIZE = 25;
export const PRIORITIES = ['high', 'standard', 'message'] as const;
export const DELIVERY_STATES = ['none', 'pending', 'delivered'] as const;

export interface InboxFilter {
  priority?: (typeof PRIORITIES)[number] | undefined;
  delivery?: (typeof DELIVERY_STATES)[number] | undefined;
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
    q: q === '' ? undefined : q,
    page: Number.isSafeInteger(page) && page >= 1 && page <= 100_000 ? page : 1,
  };
}

/** `%` and `_` are wildcards of LIKE; a search for them means the characters. */
function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export interface InboxPage {
  rows: ContactSubmissionRow[];
  /** Whether another page follows. */
  more: boolean;
}

export async function inboxPage(db: Db, filter: InboxFilter): Promise<InboxPage> {
  let query = db.selectFrom('contact_submission').selectAll();
  if (filter.priority) query = query.where('priority', '=', filter.priority);
  if (filter.delivery) query = query.where('delivery_status', '=', filter.delivery);
  if (filter.q) {
    const pattern = likePattern(filter.q);
    query = query.where((eb) => eb.or([eb(sql`lower(name)`, 'like', sql`${pattern} escape '\\'`), eb(sql`lower(work_email)`, 'like', sql`${pattern} escape '\\'`)]));
  }
  // One more than a page tells whether there is a next one, without a count(*).
  const rows = await query
    .orderBy('id', 'desc')
    .limit(PAGE_SIZE + 1)
    .offset((filter.page - 1) * PAGE_SIZE)
    .execute();
  return { rows: rows.slice(0, PAGE_SIZE), more: rows.length > PAGE_SIZE };
}

export async function submission(db: Db, id: number): Promise<ContactSubmissionRow | undefined> {
  if (!Number.isSafeInteger(id) || id < 1) return undefined;
  return db.selectFrom('contact_submission').selectAll().where('id', '=', id).executeTakeFirst();
}
