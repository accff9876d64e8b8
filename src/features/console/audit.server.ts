/**
 * The console's audit log: who did what, when. Every state-changing console request writes one
 * entry (sign-in, enrolment and sign-out included), and so do the console's CLIs (`actor` is
 * then `cli`). The console shows it newest first.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

type Db = Kysely<Database>;

export interface AuditEntry {
  id: number;
  at: number;
  actor: string;
  action: string;
  target: string | null;
  detail: string | null;
}

export async function audit(db: Db, entry: Omit<AuditEntry, 'id' | 'target' | 'detail'> & { target?: string | null; detail?: string | null }): Promise<void> {
  await db
    .insertInto('console_audit')
    .values({ at: entry.at, actor: entry.actor, action: entry.action, target: entry.target ?? null, detail: entry.detail ?? null })
    .execute();
}

/** A page of the log, newest first; `before` is the id the previous page ended at. */
export async function auditPage(db: Db, limit: number, before?: number): Promise<AuditEntry[]> {
  let query = db.selectFrom('console_audit').selectAll().orderBy('id', 'desc').limit(limit);
  if (before !== undefined) query = query.where('id', '<', before);
  const rows = await query.execute();
  return rows.map((row) => ({ ...row, id: Number(row.id), at: Number(row.at) }));
}
