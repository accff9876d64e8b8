/**
 * How fresh the daily stats are, read for the metrics at scrape time from the table itself, so
 * every instance of a fleet reports what the one that ran the job wrote: the newest
 * `materialized_at`, and the newest settled day (settled.ts) that has a record. Both are small
 * reads: daily_stat holds one row per day, and the day is its primary key.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { formatDay, parseDay, startOfDayMs } from '../../lib/calendar.ts';
import { lastSettledDay } from './response-caching.ts';

export interface StatsFreshness {
  /** Epoch ms of the newest materialization; undefined before the first. */
  lastMaterializedAt: number | undefined;
  /** Epoch ms of 00:00 UTC of the newest settled day with a record; undefined when none has one. */
  lastSettledDayStart: number | undefined;
}

export async function statsFreshness(db: Kysely<Database>, nowMs: number): Promise<StatsFreshness> {
  const [newest, settled] = await Promise.all([
    db.selectFrom('daily_stat').select((eb) => eb.fn.max('materialized_at').as('at')).executeTakeFirst(),
    db
      .selectFrom('daily_stat')
      .select((eb) => eb.fn.max('day').as('day'))
      .where('day', '<=', formatDay(lastSettledDay(nowMs)))
      .executeTakeFirst(),
  ]);
  const at = newest?.at;
  const day = settled?.day;
  return {
    lastMaterializedAt: at === null || at === undefined ? undefined : Number(at),
    lastSettledDayStart: typeof day === 'string' ? startOfDayMs(parseDay(day)) : undefined,
  };
}
