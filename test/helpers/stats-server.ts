/**
 * For tests of clients of the data API: one SQLite file per test file holding `days` days of
 * light synthetic traffic up to yesterday, materialized before the file's tests, real servers
 * started over it on demand (stopped after the file), and the database's own answer to compare
 * with what a client received.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { materialize } from '../../src/features/stats/materialize.server.ts';
import type { DataRecord } from '../../src/client/data-client.ts';
import { createDb } from '../../src/db/create-db.ts';
import { migrateToLatest } from '../../src/db/migrations/index.ts';
import type { NewEvent } from '../../src/db/schema.ts';
import { dayOfInstant, formatDay } from '../../src/lib/calendar.ts';
import { eventsForDay, mulberry32 } from '../../src/features/stats/seed-events.ts';
import { insertEvents, readDailyStats, toDataRecord } from '../../src/features/stats/stats.server.ts';
import { startServer, tempSqliteUrl, type RunningServer } from './server.ts';

export interface TrafficPlan {
  /** Days of traffic, ending yesterday (UTC). */
  days: number;
  /** Seed of the generator, so a failure replays. */
  seed: number;
  /** Days (offsets from the first) without any traffic. */
  zeroDayOffsets?: number[];
}

export interface StatsServers {
  /** Start the real server over the seeded file (stopped after the file's tests). */
  boot(env?: Record<string, string>): Promise<RunningServer>;
  /** The database's own answer for a range, as the data API shapes it. */
  fromDatabase(from: string, to: string): Promise<DataRecord[]>;
}

export function useStatsServers(plan: TrafficPlan): StatsServers {
  const databaseUrl = tempSqliteUrl();
  const started: RunningServer[] = [];

  beforeAll(async () => {
    const today = dayOfInstant(Date.now());
    const traffic = { firstDay: today - plan.days, lastDay: today - 1, baseImpressions: 20, seed: plan.seed, ...(plan.zeroDayOffsets ? { zeroDayOffsets: plan.zeroDayOffsets } : {}) };
    const handle = createDb(databaseUrl);
    try {
      expect((await migrateToLatest(handle.kysely, handle.engine)).error).toBeUndefined();
      const random = mulberry32(traffic.seed);
      const events: NewEvent[] = [];
      for (let day = traffic.firstDay; day <= traffic.lastDay; day++) events.push(...eventsForDay(traffic, day, random));
      await handle.kysely.transaction().execute((trx) => insertEvents(trx, events));
      expect(await materialize({ db: handle }, formatDay(traffic.firstDay), formatDay(traffic.lastDay))).toEqual({ days: plan.days });
    } finally {
      await handle.close();
    }
  });

  afterAll(async () => {
    await Promise.all(started.map((server) => server.stop()));
  });

  return {
    async boot(env = {}) {
      const server = await startServer({ DATABASE_URL: databaseUrl, ...env });
      started.push(server);
      return server;
    },
    async fromDatabase(from, to) {
      const handle = createDb(databaseUrl);
      try {
        return (await readDailyStats(handle.kysely, from, to)).map(toDataRecord);
      } finally {
        await handle.close();
      }
    },
  };
}
