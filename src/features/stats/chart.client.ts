/**
 * The /stats page's charts: one small uPlot bar chart per series, drawn from what the page
 * shows, redrawn when it changes or the colour scheme does, and resized with their cards.
 *
 * CSP allows only hashed scripts and styles: everything is bundled by Astro, nothing is written
 * as inline handlers or style attributes (uPlot sets styles through the CSSOM, which CSP allows).
 * Markup hooks are the `data-chart` attributes of src/components/StatsTotals.astro.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { CHART_HEIGHT, KEYS, SERIES, type SeriesKey, type Shown, chartOptions, columns } from './chart-options.ts';

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

export interface Charts {
  /** Draw every chart for `shown`; without records the hosts are hidden (the table's note says why). */
  draw(shown: Shown | undefined): void;
}

export function mountCharts(root: HTMLElement): Charts {
  const plots = new Map<SeriesKey, uPlot>();
  const hostOf = (key: SeriesKey) => root.querySelector<HTMLElement>(`[data-chart="${key}"]`);

  function draw(shown: Shown | undefined): void {
    for (const plot of plots.values()) plot.destroy();
    plots.clear();
    for (const key of KEYS) {
      const host = hostOf(key);
      if (!host) continue;
      // Nothing to draw: the empty-range note under "Daily figures" says why.
      host.hidden = !shown || shown.records.length === 0;
      if (!shown || host.hidden) continue;
      host.setAttribute('aria-label', `Bar chart of daily ${SERIES[key].label.toLowerCase()}, ${shown.range.startDate} to ${shown.range.endDate}. The table "Daily figures" lists the same numbers.`);
      const theme = {
        text: cssVar('--muted', '#4a5a6a'),
        grid: cssVar('--border', '#c9d3dd'),
        color: cssVar(SERIES[key].colorVar, '#0b4f8a'),
        font: `12px ${getComputedStyle(document.body).fontFamily}`,
      };
      const plot = new uPlot(chartOptions(key, Math.max(200, host.clientWidth), theme), columns(shown, key), host);
      // role="img" makes its children presentational (WAI-ARIA 1.2), but not every browser and
      // screen reader honours that for a live legend table; say it outright.
      plot.root.setAttribute('aria-hidden', 'true');
      plots.set(key, plot);
    }
  }

  // Follow the width of the cards, one frame at a time.
  let pending = 0;
  const resize = new ResizeObserver(() => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      for (const [key, plot] of plots) {
        const width = Math.max(200, hostOf(key)?.clientWidth ?? 0);
        if (Math.abs(width - plot.width) > 1) plot.setSize({ width, height: CHART_HEIGHT });
      }
    });
  });
  for (const key of KEYS) {
    const host = hostOf(key);
    if (host) resize.observe(host);
  }
  return { draw };
}
