/**
 * Synthetic but plausible raw events for the demo: weekly seasonality (weekends quieter),
 * growth over the period, day-to-day noise, a diurnal shape within each day, and a few outage
 * days with no events at all. Deterministic for a given seed, so every demo database is alike.
 * Pure: seed-events.server.ts writes what this returns, for the seeder (jobs/cli/seed.ts).
 */
import type { NewEvent } from '../../db/schema.ts';
import { MS_PER_DAY, startOfDayMs } from './calendar.ts';

/** Small, fast, seedable PRNG (mulberry32): uniform in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export interface SeedPlan {
  /** First and last epoch day (inclusive). */
  firstDay: number;
  lastDay: number;
  /** Average impressions per day at the start of the period; growth raises it over time. */
  baseImpressions?: number;
  /** Growth factor from the first to the last day (1.6 = +60 %). */
  growth?: number;
  /** Share of impressions that lead to a transaction. */
  conversion?: number;
  /** Days with no events (outages), as offsets from firstDay. */
  zeroDayOffsets?: readonly number[];
  seed?: number;
}

/** Weekday factors, Sunday first (epoch day 0, 1970-01-01, was a Thursday). */
const WEEKLY = [0.62, 1.0, 1.08, 1.1, 1.06, 0.97, 0.7];

/** Day-of-week (0 = Sunday) of an epoch day. */
export function weekdayOf(epochDay: number): number {
  return (((epochDay + 4) % 7) + 7) % 7;
}

/**
 * A time of day skewed towards the afternoon and evening: the mean of two uniforms, shifted,
 * wraps around midnight so every hour sees some traffic.
 */
function timeOfDayMs(random: () => number): number {
  const t = (random() + random()) / 2 + 0.12;
  return Math.floor((t % 1) * MS_PER_DAY);
}

/** Revenue of one transaction in cents: mostly small, a long tail of larger deals (log-uniform 0.20 to 250.00). */
function revenueCents(random: () => number): number {
  return Math.max(1, Math.round(20 * Math.exp(random() * Math.log(1250))));
}

/**
 * Events of one day (the day's `index` within the plan drives growth). Ids are stable
 * (`seed-<day>-<n>`), so a repeated seed of the same day is a no-op on insert.
 */
export function eventsForDay(plan: SeedPlan, epochDay: number, random: () => number): NewEvent[] {
  const offset = epochDay - plan.firstDay;
  if (plan.zeroDayOffsets?.includes(offset)) return [];
  const span = Math.max(1, plan.lastDay - plan.firstDay);
  const growth = 1 + ((plan.growth ?? 1.6) - 1) * (offset / span);
  const noise = 0.85 + random() * 0.3;
  const impressions = Math.round((plan.baseImpressions ?? 2_300) * WEEKLY[weekdayOf(epochDay)]! * growth * noise);
  const conversion = (plan.conversion ?? 0.03) * (0.8 + random() * 0.4);
  const start = startOfDayMs(epochDay);
  const events: NewEvent[] = [];
  for (let n = 0; n < impressions; n++) {
    const occurred_at = start + timeOfDayMs(random);
    events.push({ id: `seed-${epochDay}-${n}`, occurred_at, kind: 'impression', revenue_minor: 0 });
    if (random() < conversion) {
      events.push({ id: `seed-${epochDay}-${n}-t`, occurred_at: Math.min(start + MS_PER_DAY - 1, occurred_at + Math.floor(random() * 600_000)), kind: 'transaction', revenue_minor: revenueCents(random) });
    }
  }
  return events;
}
