/**
 * The console's data freshness: the last settled day that has figures, and when the
 * materializer last wrote (both from daily_stat). Backups are shown when the backup feature
 * reports one (not on this branch yet: nothing is shown rather than a guess).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';

export interface Freshness {
  /** The latest materialized UTC day, YYYY-MM-DD, or null before the first. */
  lastDay: string | null;
  /** Epoch ms of the last materialization, or null. */
  lastMaterializedAt: number | null;
  /** Materialized days in all. */
  days: number;
}

export async function freshness(db: Kysely<Database>): Promise<Freshness> {
  const row = await db
    .selectFrom('daily_stat')
    .select((eb) => [eb.fn.max('day').as('last_day'), eb.fn.max('materialized_at').as('last_at'), eb.fn.countAll<number>().as('days')])
    .executeTakeFirst();
  return {
    lastDay: (row?.last_day as string | null | undefined) ?? null,
    lastMaterializedAt: row?.last_at === null || row?.last_at === undefined ? null : Number(row.last_at),
    days: Number(row?.days ?? 0),
  };
}
