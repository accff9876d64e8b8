/**
 * The charts of /stats as data: which series there are, their columns (every day of the range,
 * gaps as `null`), and the uPlot options of each chart. Pure, so it is unit-tested without a
 * browser; chart.client.ts is the DOM controller that reads the theme and draws with these.
 */
import uPlot from 'uplot';
import { checkDay, formatDay, weekdayName } from '../../lib/calendar.ts';
import type { DataRecord } from './data-record.ts';
import { formatCompact, formatCount, formatRevenueCents, toCents } from './stats-figures.ts';
import { type DayRange, daysOf } from './stats-page.ts';

/** A range and the records shown for it. */
export interface Shown {
  range: DayRange;
  records: DataRecord[];
}

export type SeriesKey = 'txn' | 'impr' | 'revenue';

export interface SeriesSpec {
  label: string;
  /** CSS custom property (base.css) whose colour draws the bars: readable in both schemes. */
  colorVar: string;
  value(record: DataRecord): number;
  format(value: number): string;
}

export const SERIES: Record<SeriesKey, SeriesSpec> = {
  txn: { label: 'Transactions', colorVar: '--link', value: (r) => r.txn_count, format: formatCount },
  impr: { label: 'Impressions', colorVar: '--accent', value: (r) => r.impr_count, format: formatCount },
  revenue: {
    label: 'Revenue',
    colorVar: '--focus',
    value: (r) => r.service_revenue,
    format: (v) => formatRevenueCents(toCents(v)),
  },
};
export const KEYS = Object.keys(SERIES) as SeriesKey[];

export const CHART_HEIGHT = 150;
const DAY_S = 86_400;
/** Whole-number tick steps (1, 2, 5, 10, 20, 50, ...): counts and currency amounts need no 0.5 ticks. */
const Y_INCRS = Array.from({ length: 13 }, (_, power) => [1, 2, 5].map((m) => m * 10 ** power)).flat();

/** Start of a YYYY-MM-DD day in epoch seconds (uPlot's time unit). */
export function daySeconds(date: string): number {
  const checked = checkDay(date);
  return checked.ok ? checked.epochDay * DAY_S : Number.NaN;
}

/** The legend's name of a day: "Fri 2026-03-20". */
export function dayLabel(seconds: number): string {
  const date = formatDay(Math.floor(seconds / DAY_S));
  return `${weekdayName(date)} ${date}`;
}

/** Chart columns: every day of the range, `null` where a day has no record (a gap, not a zero). */
export function columns(shown: Shown, key: SeriesKey): [number[], Array<number | null>] {
  const byDate = new Map(shown.records.map((r) => [r.date, r]));
  const days = daysOf(shown.range);
  return [days.map(daySeconds), days.map((day) => (byDate.has(day) ? SERIES[key].value(byDate.get(day)!) : null))];
}

/**
 * What the page's stylesheet decides about a chart: canvas cannot read CSS, so the controller
 * reads these from the computed style (custom properties of base.css) and passes them in.
 */
export interface ChartTheme {
  /** Axis text colour. */
  text: string;
  /** Grid and tick colour. */
  grid: string;
  /** Bar colour of this series (its `colorVar`). */
  color: string;
  /** Canvas font, e.g. `12px system-ui`. */
  font: string;
}

/** Width of the y axis: its widest label in the axis font, plus the gap to the plot. */
function yAxisWidth(u: uPlot, font: string, values: string[] | null): number {
  if (!values || values.length === 0) return 24;
  u.ctx.font = font;
  return Math.ceil(Math.max(...values.map((v) => u.ctx.measureText(v).width))) + 10;
}

/** uPlot options of one series' bar chart, `width` pixels wide. Pure: same arguments, same options. */
export function chartOptions(key: SeriesKey, width: number, theme: ChartTheme): uPlot.Options {
  const spec = SERIES[key];
  const { text, grid, color, font } = theme;
  return {
    width,
    height: CHART_HEIGHT,
    // Top, right, bottom, left: on the right, room for half a day label centred on the last tick
    // (the canvas clips what is drawn past it), and on the left the rest of the first one.
    padding: [10, 32, 0, 12],
    // Days are UTC days; uPlot would otherwise place day ticks at local midnights.
    tzDate: (ts) => uPlot.tzDate(new Date(ts * 1000), 'Etc/UTC'),
    // One cursor across the three charts: hovering a day shows its three values.
    // The horizontal cursor line is off: synced to other charts' scales it would mean nothing.
    cursor: { sync: { key: 'stats-days' }, y: false, drag: { x: false, y: false, setScale: false }, points: { show: false } },
    legend: { show: true, live: true },
    scales: {
      // Half a day of margin each side so the first and last bars are whole.
      x: { time: true, range: (_u, min, max) => [min - DAY_S / 2, max + DAY_S / 2] },
      y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.08 : 1] },
    },
    axes: [
      {
        stroke: text,
        font,
        size: 30,
        grid: { show: false },
        ticks: { stroke: grid, width: 1, size: 4 },
        incrs: [DAY_S, 2 * DAY_S, 7 * DAY_S, 14 * DAY_S, 28 * DAY_S],
        // Ticks are YYYY-MM-DD like the table, the form and its hint (ISO 8601), whatever the
        // reader's locale; room for ten characters between them.
        space: 84,
        values: (_u, splits) => splits.map((s) => formatDay(Math.floor(s / DAY_S))),
      },
      {
        stroke: text,
        font,
        // As wide as the widest tick label ("150", "4k", "12.5k"), not a fixed 46 px, so the bars
        // take the card's width.
        size: (u, values) => yAxisWidth(u, font, values),
        space: 32,
        incrs: Y_INCRS,
        grid: { stroke: grid, width: 1 },
        ticks: { show: false },
        values: (_u, splits) => splits.map((v) => formatCompact(v)),
      },
    ],
    series: [
      // The legend reads out the hovered day; with no day hovered (idx null) it invites one.
      { label: 'Day', value: (_u, v, _s, idx) => (idx === null ? 'hover over a bar' : v === null ? '–' : dayLabel(v)) },
      {
        label: spec.label,
        stroke: color,
        fill: color,
        width: 0,
        points: { show: false },
        paths: uPlot.paths.bars!({ size: [0.72, 28], radius: 0.15 }),
        value: (_u, v, _s, idx) => (idx === null ? '–' : v === null ? 'no figures' : spec.format(v)),
      },
    ],
  };
}
