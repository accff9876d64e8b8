/**
 * Browser enhancement of /stats (progressive: the server-rendered form, totals and table work
 * without it). Draws one small uPlot bar chart per series, answers range changes from the public
 * data API in place (no reload; the URL follows through history.replaceState), and offers the
 * figures as a CSV file made here from the API's response.
 *
 * CSP allows only hashed scripts and styles: everything is bundled by Astro, nothing is written
 * as inline handlers or style attributes (uPlot sets styles through the CSSOM, which CSP allows).
 * Markup hooks are `data-stats-*` attributes of src/pages/stats.astro and its components.
 */
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { weekdayName } from '../../lib/calendar.ts';
import { CHART_HEIGHT, KEYS, SERIES, type SeriesKey, type Shown, chartOptions, columns } from './chart-options.ts';
import type { DataRecord } from './data-record.ts';
import { type DayRange, csvFileName, dataApiUrl, formatCount, formatRevenueCents, invalidFields, pageQuery, summaryText, toCents, toCsv, totalsOf, waitMessage } from './stats-page.ts';

function isRecordList(value: unknown): value is DataRecord[] {
  return (
    Array.isArray(value) &&
    value.every(
      (r: unknown) =>
        typeof r === 'object' &&
        r !== null &&
        typeof (r as DataRecord).date === 'string' &&
        typeof (r as DataRecord).txn_count === 'number' &&
        typeof (r as DataRecord).impr_count === 'number' &&
        typeof (r as DataRecord).service_revenue === 'number',
    )
  );
}

function cssVar(name: string, fallback: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

/** The page's elements this file drives; `undefined` when the markup lacks one. */
interface Ui {
  form: HTMLFormElement;
  startInput: HTMLInputElement;
  endInput: HTMLInputElement;
  errorBox: HTMLElement;
  summary: HTMLElement;
  totalsSection: HTMLElement;
  tableSection: HTMLElement;
  tableWrap: HTMLElement;
  empty: HTMLElement;
  caption: HTMLElement;
  rows: HTMLTableSectionElement;
  foot: HTMLTableSectionElement;
  csvLink: HTMLAnchorElement;
  jsonLink: HTMLAnchorElement;
}

const UI_SELECTORS: Record<keyof Ui, string> = {
  form: '[data-stats-form]',
  startInput: '#startDate',
  endInput: '#endDate',
  errorBox: '[data-stats-error]',
  summary: '[data-stats-summary]',
  totalsSection: '[data-stats-totals]',
  tableSection: '[data-stats-table]',
  tableWrap: '[data-stats-table-wrap]',
  empty: '[data-stats-empty]',
  caption: '[data-stats-caption]',
  rows: '[data-stats-rows]',
  foot: '[data-stats-foot]',
  csvLink: '[data-stats-csv]',
  jsonLink: '[data-stats-json]',
};

function findUi(root: HTMLElement): Ui | undefined {
  const found: Partial<Record<keyof Ui, Element>> = {};
  for (const [name, selector] of Object.entries(UI_SELECTORS) as Array<[keyof Ui, string]>) {
    const node = root.querySelector(selector);
    if (!node) return undefined;
    found[name] = node;
  }
  return found as Ui;
}

export function mountStats(root: HTMLElement): void {
  const ui = findUi(root);
  // Markup changed without this file: leave the server-rendered page as it is.
  if (!ui) return;
  const { form, startInput, endInput, errorBox, summary, totalsSection, tableSection, tableWrap, empty, caption, rows, foot, csvLink, jsonLink } = ui;

  const plots = new Map<SeriesKey, uPlot>();
  let shown: Shown | undefined;
  let csvUrl: string | undefined;
  let inFlight: AbortController | undefined;

  function drawCharts(): void {
    for (const plot of plots.values()) plot.destroy();
    plots.clear();
    for (const key of KEYS) {
      const host = root.querySelector<HTMLElement>(`[data-chart="${key}"]`);
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

  function renderTable(records: readonly DataRecord[], range: DayRange): void {
    const totals = totalsOf(records);
    caption.textContent = `Transactions, impressions and revenue per UTC day, ${range.startDate} to ${range.endDate}`;
    const body = document.createDocumentFragment();
    for (const record of records) {
      const tr = element('tr');
      const th = element('th');
      th.scope = 'row';
      const time = element('time', record.date);
      time.dateTime = record.date;
      th.append(time, ' ', element('span', weekdayName(record.date), 'weekday'));
      tr.append(th, element('td', formatCount(record.txn_count)), element('td', formatCount(record.impr_count)), element('td', formatRevenueCents(toCents(record.service_revenue))));
      body.append(tr);
    }
    rows.replaceChildren(body);
    const totalRow = element('tr');
    const totalHead = element('th', `Total (${totals.days} ${totals.days === 1 ? 'day' : 'days'})`);
    totalHead.scope = 'row';
    totalRow.append(totalHead, element('td', formatCount(totals.txnCount)), element('td', formatCount(totals.imprCount)), element('td', formatRevenueCents(totals.revenueCents)));
    foot.replaceChildren(totalRow);
    tableWrap.hidden = records.length === 0;
    empty.hidden = records.length > 0;

    const set = (key: string, text: string) => {
      const node = root.querySelector<HTMLElement>(`[data-total="${key}"]`);
      if (node) node.textContent = text;
    };
    set('txn', formatCount(totals.txnCount));
    set('impr', formatCount(totals.imprCount));
    set('revenue', formatRevenueCents(totals.revenueCents));
  }

  function offerCsv(next: Shown): void {
    if (csvUrl) URL.revokeObjectURL(csvUrl);
    csvUrl = URL.createObjectURL(new Blob([toCsv(next.records)], { type: 'text/csv;charset=utf-8' }));
    csvLink.href = csvUrl;
    csvLink.download = csvFileName(next.range);
    csvLink.hidden = next.records.length === 0;
    jsonLink.href = dataApiUrl(next.range);
  }

  function markInvalid(fields: ReadonlyArray<'startDate' | 'endDate'>): void {
    for (const input of [startInput, endInput]) {
      const bad = fields.includes(input.name as 'startDate' | 'endDate');
      if (bad) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
      input.setAttribute('aria-describedby', bad ? 'range-hint stats-error' : 'range-hint');
    }
  }

  function showError(message: string, fields: ReadonlyArray<'startDate' | 'endDate'> = []): void {
    errorBox.textContent = message;
    markInvalid(fields);
    // The figures below are still the previous range's: the caption and summary say which.
    summary.textContent = shown ? summaryText(shown.range, shown.records) : '';
  }

  function show(next: Shown): void {
    shown = next;
    errorBox.textContent = '';
    markInvalid([]);
    totalsSection.hidden = false;
    tableSection.hidden = false;
    renderTable(next.records, next.range);
    offerCsv(next);
    drawCharts();
    summary.textContent = summaryText(next.range, next.records);
  }

  async function load(range: DayRange): Promise<void> {
    inFlight?.abort();
    const controller = new AbortController();
    inFlight = controller;
    summary.textContent = `Loading figures for ${range.startDate} to ${range.endDate}…`;
    try {
      const response = await fetch(dataApiUrl(range), { headers: { accept: 'application/json' }, signal: controller.signal });
      if (response.status === 429) {
        showError(waitMessage(response.headers.get('retry-after'), Date.now()));
        return;
      }
      const body: unknown = await response.json().catch(() => undefined);
      if (response.ok && body && typeof body === 'object' && isRecordList((body as { data?: unknown }).data)) {
        show({ range, records: (body as { data: DataRecord[] }).data });
        history.replaceState(history.state, '', `${location.pathname}${pageQuery(range)}`);
        return;
      }
      const message = body && typeof body === 'object' ? (body as { message?: unknown }).message : undefined;
      if (response.status === 400 && typeof message === 'string') {
        // The data API's own SVC1005 message, as the server-rendered page shows it.
        showError(`Invalid range: ${message}`, invalidFields(message));
        return;
      }
      showError(`The statistics could not be loaded (HTTP ${response.status}). Please try again in a minute.`);
    } catch {
      if (controller.signal.aborted) return; // A newer request replaced this one.
      showError('The statistics could not be loaded: the network request failed. Please check your connection and try again.');
    } finally {
      if (inFlight === controller) inFlight = undefined;
    }
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void load({ startDate: startInput.value, endDate: endInput.value });
  });

  // The server embedded the records it rendered (the API's shape), so the first charts cost no request.
  const initial = document.getElementById('stats-initial');
  if (initial?.textContent) {
    try {
      const parsed = JSON.parse(initial.textContent) as { range?: DayRange; records?: unknown };
      if (parsed.range && isRecordList(parsed.records)) {
        shown = { range: parsed.range, records: parsed.records };
        offerCsv(shown);
        drawCharts();
      }
    } catch {
      // A broken data block leaves the page as rendered: table and totals are still there.
    }
  }

  // Follow the width of the cards, one frame at a time.
  let pending = 0;
  const resize = new ResizeObserver(() => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => {
      for (const [key, plot] of plots) {
        const host = root.querySelector<HTMLElement>(`[data-chart="${key}"]`);
        const width = Math.max(200, host?.clientWidth ?? 0);
        if (Math.abs(width - plot.width) > 1) plot.setSize({ width, height: CHART_HEIGHT });
      }
    });
  });
  for (const key of KEYS) {
    const host = root.querySelector(`[data-chart="${key}"]`);
    if (host) resize.observe(host);
  }
  // Canvas colours come from the CSS custom properties: redraw when the scheme changes.
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', drawCharts);
}
