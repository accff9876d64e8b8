import type uPlot from 'uplot';
import { describe, expect, it } from 'vitest';
import { type ChartTheme, KEYS, SERIES, chartOptions, columns, dayLabel, daySeconds } from '../../../../src/features/stats/chart-options.ts';
import type { DataRecord } from '../../../../src/features/stats/data-record.ts';

const THEME: ChartTheme = { text: '#111111', grid: '#222222', color: '#333333', font: '12px serif' };
const range = { startDate: '2026-03-19', endDate: '2026-03-21' };
const records: DataRecord[] = [
  { date: '2026-03-19', txn_count: 74, impr_count: 2398, service_revenue: 2519.64 },
  { date: '2026-03-21', txn_count: 12, impr_count: 1200, service_revenue: 0.1 },
];
// The options' callbacks ignore the uPlot instance; the tests need none.
const u = undefined as unknown as uPlot;
type RangeFn = (self: uPlot, min: number, max: number, scaleKey: string) => [number, number];
type AxisValues = (self: uPlot, splits: number[], axisIdx: number, foundSpace: number, foundIncr: number) => string[];
type LegendValue = (self: uPlot, rawValue: number | null, seriesIdx: number, idx: number | null) => string;

describe('chart columns', () => {
  it('has one x value per day of the range and a gap, not a zero, for a day without a record', () => {
    const [x, y] = columns({ range, records }, 'txn');
    expect(x).toEqual([daySeconds('2026-03-19'), daySeconds('2026-03-20'), daySeconds('2026-03-21')]);
    expect(x[1]! - x[0]!).toBe(86_400);
    expect(y).toEqual([74, null, 12]);
    expect(columns({ range, records }, 'revenue')[1]).toEqual([2519.64, null, 0.1]);
  });

  it('places each day at its UTC midnight in epoch seconds, uPlot’s time unit', () => {
    expect(daySeconds('1970-01-02')).toBe(86_400);
    expect(daySeconds('2026-02-30')).toBeNaN();
  });
});

describe('chart options', () => {
  it('draws every series with the colours and font of the theme it is given', () => {
    for (const key of KEYS) {
      const options = chartOptions(key, 480, THEME);
      expect(options.width).toBe(480);
      expect(options.series[1]).toMatchObject({ label: SERIES[key].label, stroke: THEME.color, fill: THEME.color });
      expect(options.axes?.map((axis) => [axis.stroke, axis.font])).toEqual([
        [THEME.text, THEME.font],
        [THEME.text, THEME.font],
      ]);
    }
  });

  it('pads the day axis by half a day each side and starts the value axis at zero', () => {
    const { scales } = chartOptions('txn', 300, THEME);
    const x = scales!['x']!.range as RangeFn;
    const y = scales!['y']!.range as RangeFn;
    expect(x(u, 86_400, 172_800, 'x')).toEqual([43_200, 216_000]);
    expect(y(u, 5, 100, 'y')).toEqual([0, 108]);
    // An empty or all-zero range still gets a visible axis.
    expect(y(u, 0, 0, 'y')).toEqual([0, 1]);
  });

  it('labels the day axis with YYYY-MM-DD UTC days, as the table and the form write them, and the value axis compactly', () => {
    const [dayAxis, valueAxis] = chartOptions('impr', 300, THEME).axes!;
    expect((dayAxis!.values as AxisValues)(u, [daySeconds('2026-03-20'), daySeconds('2026-10-25')], 0, 0, 0)).toEqual(['2026-03-20', '2026-10-25']);
    expect((valueAxis!.values as AxisValues)(u, [0, 1200, 2_500_000], 1, 0, 0)).toEqual(['0', '1.2k', '2.5m']);
  });

  it('reads out the hovered day and its value in the legend, and invites a hover otherwise', () => {
    const [day, revenue] = chartOptions('revenue', 300, THEME).series;
    const dayValue = day!.value as LegendValue;
    const seriesValue = revenue!.value as LegendValue;
    expect(dayValue(u, null, 0, null)).toBe('hover over a bar');
    expect(dayValue(u, daySeconds('2026-03-20'), 0, 1)).toBe('Fri 2026-03-20');
    expect(seriesValue(u, null, 1, 1)).toBe('no figures');
    expect(seriesValue(u, 2519.64, 1, 0)).toBe(SERIES.revenue.format(2519.64));
    expect(seriesValue(u, 2519.64, 1, null)).toBe('–');
  });

  it('names a legend day by its weekday and date', () => {
    expect(dayLabel(daySeconds('1970-01-01'))).toBe('Thu 1970-01-01');
  });
});
