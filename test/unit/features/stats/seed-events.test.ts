import { describe, expect, it } from 'vitest';
import { dayOfInstant, parseDay, weekdayOf } from '../../../../src/lib/calendar.ts';
import { eventsForDay, mulberry32 } from '../../../../src/features/stats/seed-events.ts';

const firstDay = parseDay('2026-01-05'); // a Monday
const plan = { firstDay, lastDay: firstDay + 399, zeroDayOffsets: [3] };

describe('demo event generator', () => {
  it('is deterministic for a seed', () => {
    expect(eventsForDay(plan, firstDay, mulberry32(1))).toEqual(eventsForDay(plan, firstDay, mulberry32(1)));
  });

  it('keeps every event on its own UTC day, with unique ids and revenue only on transactions', () => {
    const events = eventsForDay(plan, firstDay + 10, mulberry32(2));
    expect(events.length).toBeGreaterThan(1_000);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    for (const e of events) {
      expect(dayOfInstant(e.occurred_at)).toBe(firstDay + 10);
      if (e.kind === 'impression') expect(e.revenue_minor).toBe(0);
      else expect(e.revenue_minor).toBeGreaterThan(0);
    }
    expect(events.some((e) => e.kind === 'transaction')).toBe(true);
  });

  it('produces no events on outage days', () => {
    expect(eventsForDay(plan, firstDay + 3, mulberry32(3))).toEqual([]);
  });

  it('is quieter at weekends and grows over the period', () => {
    const random = mulberry32(4);
    const weekOf = (start: number) => Array.from({ length: 7 }, (_, i) => eventsForDay(plan, start + i, random).length);
    const lateWeek = weekOf(firstDay + 392);
    expect(weekdayOf(firstDay + 392)).toBe(1);
    const weekdays = lateWeek.slice(0, 5);
    const weekend = lateWeek.slice(5);
    expect(Math.max(...weekend)).toBeLessThan(Math.min(...weekdays));
    const early = weekOf(firstDay + 7).reduce((a, b) => a + b, 0);
    expect(lateWeek.reduce((a, b) => a + b, 0)).toBeGreaterThan(early * 1.3);
  });

  it('numbers weekdays from Sunday (1970-01-01 was a Thursday)', () => {
    expect(weekdayOf(0)).toBe(4);
    expect(weekdayOf(parseDay('2026-03-01'))).toBe(0);
  });
});
