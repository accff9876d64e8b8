/**
 * `sellers:verify`: does each seller's own site authorise us? For every seller with a `domain`,
 * its ads.txt must hold a record `<our domain>, <its seller_id>, <relationship>` whose
 * relationship fits its seller_type (ads-txt.ts). Which file:
 * - ads.txt first (websites, ads.txt 1.1);
 * - app-ads.txt on the same domain when ads.txt does not authorise the seller. A seller in
 *   sellers.json does not say whether it sells app inventory, and app-ads.txt 1.0 puts the file on
 *   the developer's website domain, the same `domain`; so either file authorising is enough.
 *
 * Outcome per seller: ok (a file authorises it); unreachable (none does, and at least one file
 * could not be read: we cannot tell); mismatch (every file was read, or answered that it does not
 * exist, and none authorises it: the reasons of both are reported).
 */
import { fetchAdsFile, type FetchOptions, type FetchOutcome } from './ads-txt-fetch.ts';
import { formatRecord, matchSeller, parseAdsTxt } from './ads-txt.ts';
import { rootDomainOf } from './root-domain.ts';
import type { Seller, SellersDocument } from './schema.ts';

export type Verdict = 'ok' | 'mismatch' | 'unreachable' | 'skipped';

export interface SellerReport {
  seller_id: string;
  domain?: string | undefined;
  verdict: Verdict;
  /** For ok: the file and record; otherwise why. */
  detail: string;
}

const FILES = ['ads.txt', 'app-ads.txt'] as const;

type Checked = { status: 'ok'; detail: string } | { status: 'mismatch' | 'unreachable'; detail: string };

function judge(file: (typeof FILES)[number], outcome: FetchOutcome, adSystemDomain: string, seller: Seller): Checked {
  if (outcome.kind !== 'file') return { status: outcome.kind === 'missing' ? 'mismatch' : 'unreachable', detail: `${file}: ${outcome.reason}` };
  const match = matchSeller(parseAdsTxt(outcome.text), adSystemDomain, seller);
  return match.ok
    ? { status: 'ok', detail: `${file} line ${match.record.line}: ${formatRecord(match.record)}` }
    : { status: 'mismatch', detail: `${file}: ${match.reason}` };
}

export async function verifySeller(seller: Seller, adSystemDomain: string, options: FetchOptions): Promise<SellerReport> {
  const { seller_id, domain } = seller;
  if (domain === undefined) {
    const why = seller.is_confidential === 1 ? 'confidential' : 'no web presence';
    return { seller_id, verdict: 'skipped', detail: `no domain (${why})` };
  }
  const checks: Checked[] = [];
  for (const file of FILES) {
    const outcome = await fetchAdsFile(domain, file, options);
    const checked = judge(file, outcome, adSystemDomain, seller);
    if (checked.status === 'ok') return { seller_id, domain, verdict: 'ok', detail: checked.detail };
    checks.push(checked);
    // No HTTP answer at all on either scheme: app-ads.txt lives on the same host, so asking again
    // would only wait out the same timeouts.
    if (outcome.kind === 'unreachable' && outcome.network === true) break;
  }
  const verdict = checks.some((c) => c.status === 'unreachable') ? 'unreachable' : 'mismatch';
  return { seller_id, domain, verdict, detail: checks.map((c) => c.detail).join('; ') };
}

/** Verify every seller, `concurrency` at a time; reports come back in the document's order. */
export async function verifySellers(
  document: SellersDocument,
  adSystemDomain: string,
  options: FetchOptions & { concurrency?: number; onReport?: (report: SellerReport, index: number) => void },
): Promise<SellerReport[]> {
  const reports: SellerReport[] = new Array<SellerReport>(document.sellers.length);
  let next = 0;
  const worker = async () => {
    while (next < document.sellers.length) {
      const index = next++;
      reports[index] = await verifySeller(document.sellers[index]!, adSystemDomain, options); // index < length
      options.onReport?.(reports[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 4) }, worker));
  return reports;
}

/**
 * Our domain as it appears in field 1 of ads.txt records: the root domain of sellers.json's
 * `contact_email` (the advertising system that publishes the file, IAB sellers.json 1.0: the file
 * lives "on the root domain of the advertising system", the domain buyers find in ads.txt).
 * undefined when the document has no contact_email: the caller must be told the domain.
 */
export function adSystemDomainOf(document: SellersDocument): string | undefined {
  const host = document.contact_email?.split('@').at(-1)?.toLowerCase();
  return host ? (rootDomainOf(host) ?? undefined) : undefined;
}

/** `ok          pub-1001  harbourdaily.example  ads.txt line 3: ...` */
export function formatReport(report: SellerReport): string {
  return [report.verdict.padEnd(11), report.seller_id, ...(report.domain ? [report.domain] : []), report.detail].join('  ');
}
