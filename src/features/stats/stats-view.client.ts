/**
 * The /stats page's text: the table, the totals, the summary line, the error box and the CSV
 * and JSON links, rewritten in place with the formatters the server renders with
 * (stats-figures.ts, stats-page.ts). Markup hooks are the `data-stats-*` attributes of src/pages/stats.astro and
 * its components.
 */
import { weekdayName } from '../../lib/calendar.ts';
import type { Shown } from './chart-options.ts';
import type { DataRecord } from './data-record.ts';
import { csvFileName, toCsv } from './stats-csv.ts';
import { formatCount, formatRevenueCents, toCents, totalsOf } from './stats-figures.ts';
import { type DayRange, dataApiUrl, summaryText } from './stats-page.ts';

type RangeField = 'startDate' | 'endDate';

/** The page's elements this script drives. */
export interface Ui {
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

/** The page's elements; `undefined` when the markup lacks one. */
export function findUi(root: HTMLElement): Ui | undefined {
  const found: Partial<Record<keyof Ui, Element>> = {};
  for (const [name, selector] of Object.entries(UI_SELECTORS) as Array<[keyof Ui, string]>) {
    const node = root.querySelector(selector);
    if (!node) return undefined;
    found[name] = node;
  }
  return found as Ui;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, className?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className !== undefined) node.className = className;
  return node;
}

function recordRow(record: DataRecord): HTMLTableRowElement {
  const tr = element('tr');
  const th = element('th');
  th.scope = 'row';
  const time = element('time', record.date);
  time.dateTime = record.date;
  th.append(time, ' ', element('span', weekdayName(record.date), 'weekday'));
  tr.append(th, element('td', formatCount(record.txn_count)), element('td', formatCount(record.impr_count)), element('td', formatRevenueCents(toCents(record.service_revenue))));
  return tr;
}

function renderTable(root: HTMLElement, ui: Ui, records: readonly DataRecord[], range: DayRange): void {
  const totals = totalsOf(records);
  ui.caption.textContent = `Transactions, impressions and revenue per UTC day, ${range.startDate} to ${range.endDate}`;
  const body = document.createDocumentFragment();
  for (const record of records) body.append(recordRow(record));
  ui.rows.replaceChildren(body);
  const totalRow = element('tr');
  const totalHead = element('th', `Total (${totals.days} ${totals.days === 1 ? 'day' : 'days'})`);
  totalHead.scope = 'row';
  totalRow.append(totalHead, element('td', formatCount(totals.txnCount)), element('td', formatCount(totals.imprCount)), element('td', formatRevenueCents(totals.revenueCents)));
  ui.foot.replaceChildren(totalRow);
  ui.tableWrap.hidden = records.length === 0;
  ui.empty.hidden = records.length > 0;

  const set = (key: string, text: string) => {
    const node = root.querySelector<HTMLElement>(`[data-total="${key}"]`);
    if (node) node.textContent = text;
  };
  set('txn', formatCount(totals.txnCount));
  set('impr', formatCount(totals.imprCount));
  set('revenue', formatRevenueCents(totals.revenueCents));
}

export interface StatsView {
  loading(range: DayRange): void;
  /** The new figures everywhere but the charts and the summary line (`summarise`, after the charts). */
  show(next: Shown): void;
  summarise(shown: Shown): void;
  /** `message` in the error box; `current`, still on the page, keeps its summary line. */
  showError(message: string, fields: ReadonlyArray<RangeField>, current: Shown | undefined): void;
  /** The CSV link (a file made here from the records) and the JSON link of the API call. */
  offerCsv(next: Shown): void;
}

export function statsView(root: HTMLElement, ui: Ui): StatsView {
  let csvUrl: string | undefined;

  function markInvalid(fields: ReadonlyArray<RangeField>): void {
    for (const input of [ui.startInput, ui.endInput]) {
      const bad = fields.includes(input.name as RangeField);
      if (bad) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
      input.setAttribute('aria-describedby', bad ? 'range-hint stats-error' : 'range-hint');
    }
  }

  function offerCsv(next: Shown): void {
    if (csvUrl) URL.revokeObjectURL(csvUrl);
    csvUrl = URL.createObjectURL(new Blob([toCsv(next.records)], { type: 'text/csv;charset=utf-8' }));
    ui.csvLink.href = csvUrl;
    ui.csvLink.download = csvFileName(next.range);
    ui.csvLink.hidden = next.records.length === 0;
    ui.jsonLink.href = dataApiUrl(next.range);
  }

  return {
    loading(range) {
      ui.summary.textContent = `Loading figures for ${range.startDate} to ${range.endDate}…`;
    },
    show(next) {
      ui.errorBox.textContent = '';
      markInvalid([]);
      ui.totalsSection.hidden = false;
      ui.tableSection.hidden = false;
      renderTable(root, ui, next.records, next.range);
      offerCsv(next);
    },
    summarise(shown) {
      ui.summary.textContent = summaryText(shown.range, shown.records);
    },
    showError(message, fields, current) {
      ui.errorBox.textContent = message;
      markInvalid(fields);
      // The figures below are still the previous range's: the caption and summary say which.
      ui.summary.textContent = current ? summaryText(current.range, current.records) : '';
    },
    offerCsv,
  };
}
