/**
 * Turn zod issues about a sellers document into messages that name the seller, the way
 * Starlight's `parseWithFriendlyErrors` names the config field: an editor reading a failed build
 * sees which seller (by seller_id and position), which field and which rule.
 */
import { z } from 'zod';
import { SellersDocument } from './schema.ts';

/** The file editors maintain; also the id of the one entry of the `sellers` collection. */
export const SELLERS_FILE = 'content/sellers.json';

export interface SellersIssue {
  /** Where in the document, e.g. ["sellers", 3, "domain"]. */
  path: (string | number)[];
  /** What is wrong and what is expected, naming the seller. */
  message: string;
}

/** `sellers[3].domain` */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out ? `${out}.${String(key)}` : String(key)), '');
}

/** `seller "pub-1004"` when it has a usable seller_id, else `sellers[3]`. */
function sellerLabel(input: unknown, index: number): string {
  const sellers = typeof input === 'object' && input !== null ? (input as { sellers?: unknown }).sellers : undefined;
  const seller = Array.isArray(sellers) ? (sellers[index] as unknown) : undefined;
  const id = typeof seller === 'object' && seller !== null ? (seller as { seller_id?: unknown }).seller_id : undefined;
  return typeof id === 'string' && id.trim() !== '' ? `seller "${id}"` : `sellers[${index}] (no seller_id)`;
}

/** Each issue with the seller it concerns named in its message. */
export function friendlySellersIssues(issues: readonly z.core.$ZodIssue[], input: unknown): SellersIssue[] {
  return issues.map((issue) => {
    const path = issue.path.filter((key): key is string | number => typeof key !== 'symbol');
    // An unknown field is reported on its object; point at the field itself.
    if (issue.code === 'unrecognized_keys' && issue.keys[0] !== undefined) path.push(issue.keys[0]);
    const index = path[0] === 'sellers' && typeof path[1] === 'number' ? path[1] : undefined;
    const message = index === undefined ? issue.message : `${sellerLabel(input, index)}: ${issue.message}`;
    return { path, message };
  });
}

export type SellersResult = { success: true; data: SellersDocument } | { success: false; issues: SellersIssue[] };

/** Validate a parsed sellers.json document against sellers.json 1.0 and our rules. */
export function parseSellersDocument(input: unknown): SellersResult {
  const result = SellersDocument.safeParse(input);
  return result.success ? { success: true, data: result.data } : { success: false, issues: friendlySellersIssues(result.error.issues, input) };
}

/** A report for a terminal: one line per issue, prefixed with the file. */
export function formatSellersIssues(issues: readonly SellersIssue[], file: string = SELLERS_FILE): string {
  return [
    `${file} does not follow sellers.json 1.0 (${issues.length} problem${issues.length === 1 ? '' : 's'}):`,
    ...issues.map((issue) => `  - ${issue.path.length ? `${formatPath(issue.path)}: ` : ''}${issue.message}`),
  ].join('\n');
}

/**
 * The `sellers` collection's schema: `SellersDocument` with the friendly messages. Astro prints
 * each issue as `**<path>**: <message>` under the collection and entry id (the file).
 */
export const SellersFileSchema = z.unknown().transform((input, ctx): SellersDocument => {
  const result = parseSellersDocument(input);
  if (result.success) return result.data;
  for (const issue of result.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message, input });
  return z.NEVER;
});
