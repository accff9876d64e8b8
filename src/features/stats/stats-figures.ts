/**
 * The /stats page's figures, pure and client-safe: totals of daily records in exact integer
 * cents, and how counts and amounts are written for people. Shared by the server render and the
 * browser enhancement, so both show the same totals and labels.
 */
import type { DataRecord } from './data-record.ts';

/** Sums of a set of daily records. Revenue is summed in integer cents, so it is exact. */
export interface Totals {
  /** Days that have a record (materialized days). */
  days: number;
  /** Transactions over those days. */
  txnCount: number;
  /** Impressions over those days. */
  imprCount: number;
  /** Revenue over those days in integer minor units (cents). */
  revenueCents: number;
}

/**
 * Amount in currency units (at most two decimals, as the API guarantees) to integer cents.
 * `Math.round(x * 100)` recovers the integer exactly: the API's numbers have at most 15
 * significant digits (money.ts), far inside the range where the product's rounding error is
 * below half a cent.
 */
export function toCents(amount: number): number {
  return Math.round(amount * 100);
}

export function totalsOf(records: readonly DataRecord[]): Totals {
  let txnCount = 0;
  let imprCount = 0;
  let revenueCents = 0;
  for (const record of records) {
    txnCount += record.txn_count;
    imprCount += record.impr_count;
    revenueCents += toCents(record.service_revenue);
  }
  return { days: records.length, txnCount, imprCount, revenueCents };
}

/** Integer cents as a plain decimal with exactly two places and no grouping: 123456 -> "1234.56". */
export function centsToDecimal(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

// en-GB to match the site's dates; grouping with commas and a point for decimals, as en-US.
const COUNT_FORMAT = new Intl.NumberFormat('en-GB', { maximumFractionDigits: 0 });
const AMOUNT_FORMAT = new Intl.NumberFormat('en-GB', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
const COMPACT_FORMAT = new Intl.NumberFormat('en-GB', { notation: 'compact', maximumFractionDigits: 1 });

/** A count for people: 1234567 -> "1,234,567". */
export function formatCount(value: number): string {
  return COUNT_FORMAT.format(value);
}

/**
 * Revenue for people, two decimals and no currency symbol: the interface does not name the
 * currency (docs/interface.md section 2), so the page labels it neutrally ("Revenue") and explains why.
 * Formatted from the decimal string, so no binary rounding can move the last cent.
 */
export function formatRevenueCents(cents: number): string {
  // Intl.NumberFormat formats decimal strings exactly (ECMA-402, Intl.NumberFormat v3).
  return AMOUNT_FORMAT.format(centsToDecimal(cents) as Intl.StringNumericLiteral);
}

/** Short axis label: 1200 -> "1.2K". */
export function formatCompact(value: number): string {
  return COMPACT_FORMAT.format(value);
}
