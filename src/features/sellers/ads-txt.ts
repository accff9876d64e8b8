/**
 * Reading an ads.txt or app-ads.txt file (IAB Tech Lab ads.txt 1.1, section 3; app-ads.txt 1.0
 * uses the same format) and deciding whether it authorises one of our sellers.
 *
 * Format, per line: `#` starts a comment to the end of the line; a line `NAME=value` is a
 * variable (CONTACT, SUBDOMAIN, INVENTORYPARTNERDOMAIN, OWNERDOMAIN, MANAGERDOMAIN: none of them
 * is a data record); anything else is a data record
 * `<ad system domain>, <seller account ID>, <DIRECT|RESELLER>[, <certification authority ID>]`,
 * optionally followed by `;` and extension data. Fields are trimmed; the domain and the
 * relationship compare case-insensitively; further comma-separated fields are kept, not refused
 * (the spec asks readers to tolerate what they do not know). A line that is none of these is
 * counted as invalid and otherwise ignored, as the spec tells crawlers to do.
 */
import type { SELLER_TYPES } from './schema.ts';

export type Relationship = 'DIRECT' | 'RESELLER';

export interface AdsTxtRecord {
  /** 1-based line number in the file. */
  line: number;
  /** Field 1, lower-cased. */
  domain: string;
  /** Field 2, as written (account IDs are compared exactly). */
  accountId: string;
  /** Field 3, upper-cased. */
  relationship: Relationship;
  /** Field 4, when present. */
  certificationAuthorityId?: string;
  /** Fields after the fourth, tolerated. */
  extra: string[];
}

export interface AdsTxtFile {
  records: AdsTxtRecord[];
  /** Variables by upper-cased name, in file order (e.g. OWNERDOMAIN, MANAGERDOMAIN). */
  variables: Array<{ line: number; name: string; value: string }>;
  /** Line numbers that were neither blank, comment, variable nor a valid record. */
  invalidLines: number[];
}

const VARIABLE = /^([A-Za-z][A-Za-z0-9_-]*)\s*=\s*(.*)$/;

export function parseAdsTxt(text: string): AdsTxtFile {
  const file: AdsTxtFile = { records: [], variables: [], invalidLines: [] };
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  lines.forEach((raw, index) => {
    const line = index + 1;
    const hash = raw.indexOf('#');
    const content = (hash === -1 ? raw : raw.slice(0, hash)).trim();
    if (content === '') return;
    const variable = VARIABLE.exec(content);
    if (variable) {
      file.variables.push({ line, name: variable[1]!.toUpperCase(), value: variable[2]!.trim() }); // both groups always match
      return;
    }
    const semicolon = content.indexOf(';');
    const fields = (semicolon === -1 ? content : content.slice(0, semicolon)).split(',').map((field) => field.trim());
    const [domain = '', accountId = '', relationship = '', certificationAuthorityId, ...extra] = fields;
    const kind = relationship.toUpperCase();
    if (domain === '' || accountId === '' || (kind !== 'DIRECT' && kind !== 'RESELLER')) {
      file.invalidLines.push(line);
      return;
    }
    file.records.push({
      line,
      domain: domain.toLowerCase().replace(/\.$/, ''),
      accountId,
      relationship: kind,
      ...(certificationAuthorityId ? { certificationAuthorityId } : {}),
      extra,
    });
  });
  return file;
}

/** The relationships a seller of each type may be listed with (sellers.json 1.0, seller_type). */
export const ACCEPTED_RELATIONSHIPS: Record<(typeof SELLER_TYPES)[number], readonly Relationship[]> = {
  PUBLISHER: ['DIRECT'],
  INTERMEDIARY: ['RESELLER'],
  BOTH: ['DIRECT', 'RESELLER'],
};

export interface SellerToMatch {
  seller_id: string;
  seller_type: (typeof SELLER_TYPES)[number];
}

export type MatchResult = { ok: true; record: AdsTxtRecord } | { ok: false; reason: string };

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** Quote the first few values of a list for a message. */
function sample(values: readonly string[]): string {
  const unique = [...new Set(values)];
  const shown = unique.slice(0, 5).map((v) => `"${v}"`).join(', ');
  return unique.length > 5 ? `${shown} and ${unique.length - 5} more` : shown;
}

/** Does `file` list `adSystemDomain` with the seller's ID and a relationship its type allows? */
export function matchSeller(file: AdsTxtFile, adSystemDomain: string, seller: SellerToMatch): MatchResult {
  const ours = file.records.filter((record) => record.domain === adSystemDomain.toLowerCase());
  const accepted = ACCEPTED_RELATIONSHIPS[seller.seller_type];
  if (ours.length === 0) {
    const invalid = file.invalidLines.length > 0 ? ` (${plural(file.invalidLines.length, 'invalid line')} ignored, first at line ${file.invalidLines[0]})` : '';
    return { ok: false, reason: `no line for ${adSystemDomain} among ${plural(file.records.length, 'record')}${invalid}` };
  }
  const sameId = ours.filter((record) => record.accountId === seller.seller_id);
  const good = sameId.find((record) => accepted.includes(record.relationship));
  if (good) return { ok: true, record: good };
  if (sameId.length > 0) {
    const found = sameId[0]!; // length checked
    return {
      ok: false,
      reason: `line ${found.line} lists ${seller.seller_id} as ${found.relationship}; seller_type ${seller.seller_type} must be listed ${accepted.join(' or ')}`,
    };
  }
  const otherCase = ours.find((record) => record.accountId.toLowerCase() === seller.seller_id.toLowerCase());
  if (otherCase) {
    return { ok: false, reason: `line ${otherCase.line} has seller ID "${otherCase.accountId}", which differs from "${seller.seller_id}" in case (IDs match exactly)` };
  }
  return { ok: false, reason: `${adSystemDomain} is listed without seller ID "${seller.seller_id}" (found ${sample(ours.map((r) => r.accountId))})` };
}

/** One record as it would be written in the file, for the report. */
export function formatRecord(record: AdsTxtRecord): string {
  return [record.domain, record.accountId, record.relationship, ...(record.certificationAuthorityId ? [record.certificationAuthorityId] : [])].join(', ');
}
