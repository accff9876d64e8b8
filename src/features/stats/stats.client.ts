/**
 * Browser enhancement of /stats (progressive: the server-rendered form, totals and table work
 * without it). Draws the charts (chart.client.ts), answers range changes from the public data
 * API in place (stats-network.client.ts; no reload, the URL follows through
 * history.replaceState), rewrites the table and totals (stats-view.client.ts), and offers the
 * figures as a CSV file made here from the API's response.
 */
import type { Shown } from './chart-options.ts';
import { mountCharts } from './chart.client.ts';
import { watchSideways } from './scroll-cue.client.ts';
import { fetchRange } from './stats-network.client.ts';
import { type DayRange, pageQuery } from './stats-page.ts';
import { initialShown, latestOnly } from './stats-state.ts';
import { findUi, statsView } from './stats-view.client.ts';

export function mountStats(root: HTMLElement): void {
  const ui = findUi(root);
  // Markup changed without this file: leave the server-rendered page as it is.
  if (!ui) return;
  const charts = mountCharts(root);
  if (ui.tableWrap.parentElement) watchSideways(ui.tableWrap, ui.tableWrap.parentElement);
  const view = statsView(root, ui);
  const requests = latestOnly();
  let shown: Shown | undefined;

  async function load(range: DayRange): Promise<void> {
    const controller = requests.start();
    view.loading(range);
    try {
      const answer = await fetchRange(range, controller.signal);
      if (!answer.ok) {
        view.showError(answer.message, answer.fields ?? [], shown);
        return;
      }
      shown = answer.shown;
      view.show(shown);
      charts.draw(shown);
      view.summarise(shown);
      history.replaceState(history.state, '', `${location.pathname}${pageQuery(range)}`);
    } catch {
      if (controller.signal.aborted) return; // A newer request replaced this one.
      view.showError('The statistics could not be loaded: the network request failed. Please check your connection and try again.', [], shown);
    } finally {
      requests.finish(controller);
    }
  }

  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load({ startDate: ui.startInput.value, endDate: ui.endInput.value });
  });

  shown = initialShown(document.getElementById('stats-initial')?.textContent);
  if (shown) {
    view.offerCsv(shown);
    charts.draw(shown);
  }
  // Canvas colours come from the CSS custom properties: redraw when the scheme changes.
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => charts.draw(shown));
}
