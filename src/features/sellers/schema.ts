/**
 * sellers.json 1.0 (IAB Tech Lab, July 2019) as zod: the document served at `GET /sellers.json`
 * (docs/interface.md section 2, SellersDocument) and the rules `content/sellers.json` must follow to build.
 *
 * Quotations in the messages are from the IAB text. Where the IAB text says "should" or leaves
 * something open, the rule we chose and why is written beside it.
 */
import { z } from 'zod';
import { rootDomainOf } from './root-domain.ts';

/** Values the IAB text allows for `seller_type`. */
export const SELLER_TYPES = ['PUBLISHER', 'INTERMEDIARY', 'BOTH'] as const;

/** A short, printable rendering of a value for messages. */
function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  if (json === undefined) return String(value);
  return json.length > 80 ? `${json.slice(0, 77)}...` : json;
}

/**
 * Run an object-level rule even when a field already failed, so one build reports every
 * problem of a seller (zod skips refinements after a type error by default).
 */
const whenObject = {
  when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
};

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TLD = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * Our best guess at the bare domain inside `value` ("https://www.Example.com:443/x" →
 * "example.com"), used to suggest a fix.
 */
export function bareDomainOf(value: string): string {
  return value
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/^[^@/]*@/, '')
    .replace(/[/?#].*$/, '')
    .replace(/:\d*$/, '')
    .replace(/^www\d*\./, '')
    .replace(/\.$/, '');
}

/**
 * Why `value` is not a bare root domain, or `null` when it is one.
 *
 * sellers.json 1.0, Seller.domain: "the business domain name of the company", and for an
 * INTERMEDIARY or BOTH "the root domain name of the seller's Sellers.json file", which buyers
 * fetch as https://<domain>/sellers.json. So: a host name only, no scheme, path, port or
 * "www." label, in lower case, and the registrable domain itself ("public suffix + 1", as ads.txt
 * defines the root domain), checked against the Public Suffix List with tldts: "ads.example.com"
 * is refused in favour of "example.com", "co.uk" is refused as a suffix nobody owns. See
 * `rootDomainOf` for the list's private section.
 */
export function domainProblem(value: string): string | null {
  const fix = bareDomainOf(value);
  const suggest = fix && fix !== value && LABEL.test(fix.split('.')[0] ?? '') ? `, e.g. "${fix}"` : '';
  const rule = `must be a bare root domain such as example.com`;
  if (value.trim() === '') return `domain must not be empty: ${rule}, or leave domain out (see README, "Adding a seller")`;
  if (value !== value.trim()) return `domain ${show(value)} has spaces around it: write it without them${suggest}`;
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0];
  if (scheme) return `domain ${show(value)} ${rule}, without the scheme "${scheme}"${suggest}`;
  if (/[/?#]/.test(value)) return `domain ${show(value)} ${rule}, without a path${suggest}`;
  if (/:\d*$/.test(value)) return `domain ${show(value)} ${rule}, without a port${suggest}`;
  if (value !== value.toLowerCase()) return `domain ${show(value)} must be written in lower case${suggest}`;
  if (/^www\d*\./.test(value)) return `domain ${show(value)} ${rule}, without "www."${suggest}`;
  if (value.endsWith('.')) return `domain ${show(value)} ${rule}, without a trailing dot${suggest}`;
  const labels = value.split('.');
  const tld = labels.at(-1) ?? '';
  if (labels.length < 2 || value.length > 253 || !labels.every((label) => LABEL.test(label)) || !TLD.test(tld)) {
    return `domain ${show(value)} is not a domain name: ${rule} (letters, digits and hyphens, with a dot before the top-level domain)`;
  }
  const root = rootDomainOf(value);
  if (root === null) return `domain ${show(value)} is a public suffix (Public Suffix List), which nobody registers: ${rule}, the company's own domain`;
  if (root !== value) return `domain ${show(value)} is a subdomain: sellers.json 1.0 asks for the root domain, e.g. "${root}"`;
  return null;
}

/** A bare root domain (see `domainProblem`). */
export const Domain = z
  .string({ error: (issue) => `domain must be text such as "example.com", got ${show(issue.input)}` })
  .superRefine((value, ctx) => {
    const problem = domainProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem, input: value });
  });

/** 0 or 1, the IAB text's integer flags. */
const flag = (field: string) =>
  z.literal([0, 1], { error: (issue) => `${field} must be the number 0 or 1, got ${show(issue.input)}` });

/**
 * Advertising-system extensions of a seller (sellers.json 1.0: "placeholder for
 * advertising-system specific extensions"). We define one member, `no_web_presence`.
 */
export const SellerExt = z.looseObject({
  /**
   * true: the seller has no website, so it has no `domain`. The IAB text lets `domain` "be
   * omitted when is_confidential is set to 1 or when the seller doesn't have a web presence"
   * but defines no field that says so; we record it here, in the extension object, so that the
   * omission is deliberate and visible to buyers rather than an oversight.
   */
  no_web_presence: z
    .boolean({ error: (issue) => `ext.no_web_presence must be true or false, got ${show(issue.input)}` })
    .optional()
    .meta({ description: 'true: the seller has no website, so it has no `domain` (sellers.json 1.0 allows that omission but names no field for it).' }),
});
export type SellerExt = z.infer<typeof SellerExt>;

const SELLER_FIELDS = ['seller_id', 'is_confidential', 'seller_type', 'is_passthrough', 'name', 'domain', 'comment', 'ext'];

const unknownKeys = (where: string, fields: readonly string[]) => (issue: { code?: string; keys?: string[] }) =>
  issue.code === 'unrecognized_keys'
    ? `unknown field${issue.keys && issue.keys.length > 1 ? 's' : ''} ${(issue.keys ?? []).map((k) => `"${k}"`).join(', ')} in ${where}: ` +
      `sellers.json 1.0 defines ${fields.join(', ')} (put anything else in "ext")`
    : undefined;

/** One seller account (sellers.json 1.0, Seller object). */
export const Seller = z
  .strictObject(
    {
      /**
       * The account identifier: the ID in ads.txt lines and in SupplyChain `sid`. Unique in the file.
       */
      seller_id: z
        .string({ error: (issue) => issue.input === undefined ? 'seller_id is required' : `seller_id must be text, got ${show(issue.input)}` })
        .min(1, 'seller_id must not be empty')
        .refine((v) => v === v.trim(), { message: 'seller_id must not start or end with spaces: buyers match it exactly against ads.txt' })
        .meta({ description: 'The account identifier, as in ads.txt lines and SupplyChain `sid`; unique in the file.', examples: ['pub-1001'] }),
      is_confidential: flag('is_confidential')
        .optional()
        .meta({ description: "1 when the seller's identity is confidential; `name` and `domain` are then left out." }),
      /**
       * PUBLISHER: owns the inventory and is paid directly; INTERMEDIARY: resells inventory it
       * does not own or is not paid for directly; BOTH: sells both kinds.
       */
      seller_type: z.enum(SELLER_TYPES, {
        error: (issue) =>
          issue.input === undefined
            ? 'seller_type is required: PUBLISHER, INTERMEDIARY or BOTH'
            : `seller_type must be PUBLISHER, INTERMEDIARY or BOTH (in capitals), got ${show(issue.input)}`,
      }).meta({
        description: 'PUBLISHER: owns the inventory and is paid directly; INTERMEDIARY: resells inventory it does not own; BOTH: sells both kinds.',
        examples: ['PUBLISHER'],
      }),
      is_passthrough: flag('is_passthrough')
        .optional()
        .meta({ description: '1 when the seller passes inventory through with an account-control relationship.' }),
      name: z
        .string({ error: (issue) => `name must be text, got ${show(issue.input)}` })
        .min(1, 'name must not be empty')
        .refine((v) => v.trim() === v && v.trim() !== '', { message: 'name must not be blank or start or end with spaces' })
        .optional()
        .meta({ description: 'Legal name of the company paid for inventory sold under this seller_id.', examples: ['Harbour Daily Media Ltd'] }),
      domain: Domain.optional().meta({
        description: 'Business root domain of that company (for an intermediary: where its own sellers.json lives).',
        examples: ['harbourdaily.example'],
      }),
      comment: z
        .string({ error: (issue) => `comment must be text, got ${show(issue.input)}` })
        .optional()
        .meta({ description: 'A note for buyers, e.g. which inventory this seller_id covers.', examples: ['Web and app inventory of the Alpine Weather brands'] }),
      ext: SellerExt.optional().meta({ description: 'Extensions. `no_web_presence: true` says the seller has no website, hence no `domain`.' }),
    },
    { error: unknownKeys('a seller', SELLER_FIELDS) },
  )
  .superRefine((seller, ctx) => {
    // Runs even when a field failed (see `when` below): values may not have their types yet.
    const confidential = seller.is_confidential === 1;
    const noWebPresence = seller.ext?.no_web_presence === true;
    if (!confidential && seller.name === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['name'],
        message: 'name is required unless is_confidential is 1 (sellers.json 1.0: name "can be omitted only when is_confidential is set to 1")',
      });
    }
    if (confidential && (seller.name !== undefined || seller.domain !== undefined)) {
      // Not an IAB "must", but publishing the identity of a seller flagged confidential in a
      // public file defeats the flag; refusing it protects the seller from an editing slip.
      ctx.addIssue({
        code: 'custom',
        path: [seller.name !== undefined ? 'name' : 'domain'],
        message: 'a confidential seller (is_confidential: 1) must not list its name or domain in this public file: remove them, or set is_confidential to 0',
      });
    }
    if (!confidential && seller.domain === undefined && !noWebPresence) {
      ctx.addIssue({
        code: 'custom',
        path: ['domain'],
        message:
          'domain is required for a seller that is not confidential (sellers.json 1.0: it "can be omitted when is_confidential is set to 1 or when the seller doesn\'t have a web presence"); ' +
          'if the seller has no website, say so with "ext": { "no_web_presence": true }',
      });
    }
    if (seller.domain !== undefined && noWebPresence) {
      ctx.addIssue({
        code: 'custom',
        path: ['ext', 'no_web_presence'],
        message: 'ext.no_web_presence is true but a domain is given: remove one of them',
      });
    }
  }, whenObject)
  .meta({ title: 'Seller', description: 'One seller account (sellers.json 1.0, Seller object).' });
export type Seller = z.infer<typeof Seller>;

/** An identifier of the advertising system (sellers.json 1.0, Identifier object). */
export const Identifier = z.strictObject(
  {
    name: z
      .string({ error: (issue) => `identifier name must be text such as "TAG-ID" or "DUNS", got ${show(issue.input)}` })
      .min(1, 'identifier name must not be empty')
      .meta({ description: 'What the identifier is, e.g. "TAG-ID" or "DUNS".', examples: ['TAG-ID'] }),
    value: z
      .string({ error: (issue) => `identifier value must be text, got ${show(issue.input)}` })
      .min(1, 'identifier value must not be empty')
      .meta({ description: 'Its value, e.g. the TAG certification ID.', examples: ['4f2a8c1e9b7d3a60'] }),
  },
  { error: unknownKeys('an identifier', ['name', 'value']) },
).meta({ title: 'Identifier', description: 'An identifier of the advertising system (sellers.json 1.0, Identifier object).' });
export type Identifier = z.infer<typeof Identifier>;

const DOCUMENT_FIELDS = ['contact_email', 'contact_address', 'version', 'identifiers', 'sellers', 'ext'];

/**
 * The sellers.json document (docs/interface.md section 2, SellersDocument; sellers.json 1.0, top-level
 * object). Field order here is the order we publish.
 */
export const SellersDocument = z
  .strictObject(
    {
      contact_email: z
        .email({ error: (issue) => `contact_email must be an email address, got ${show(issue.input)}` })
        .optional()
        .meta({ description: 'Where buyers ask questions about this file.', examples: ['sellers@meridian-exchange.example'] }),
      contact_address: z
        .string({ error: (issue) => `contact_address must be text, got ${show(issue.input)}` })
        .min(1, 'contact_address must not be empty')
        .optional()
        .meta({ description: 'Business address of the advertising system.', examples: ['Meridian Ad Exchange Ltd, 40 Bank Street, London E14 5NR, United Kingdom'] }),
      version: z.literal('1.0', {
        error: (issue) => `version must be the string "1.0" (the sellers.json version this file follows), got ${show(issue.input)}`,
      }).meta({ description: 'The sellers.json version this file follows.', examples: ['1.0'] }),
      identifiers: z
        .array(Identifier, { error: (issue) => `identifiers must be a list of { "name", "value" }, got ${show(issue.input)}` })
        .optional()
        .meta({ description: 'Identifiers of the advertising system, e.g. TAG-ID, DUNS.' }),
      sellers: z
        .array(Seller, { error: (issue) => issue.input === undefined ? 'sellers is required: the list of seller accounts' : `sellers must be a list of sellers, got ${show(issue.input)}` })
        .min(1, 'sellers must list at least one seller')
        .meta({ description: 'Every seller account, confidential ones included.' }),
      ext: z
        .record(z.string(), z.unknown(), { error: (issue) => `ext must be an object, got ${show(issue.input)}` })
        .optional()
        .meta({ description: 'Extensions of the document.' }),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? unknownKeys('the document', DOCUMENT_FIELDS)(issue)
          : `the sellers file must hold one JSON object, { "version": "1.0", "sellers": [...] }, got ${Array.isArray(issue.input) ? 'a list' : show(issue.input)}`,
    },
  )
  .superRefine((document, ctx) => {
    // sellers.json 1.0: seller_id "is the same ID that appears in an ads.txt file"; two sellers
    // with one ID would make that match ambiguous.
    // Runs even when a child failed (`whenObject`): the values may not have their types yet.
    if (!Array.isArray(document.sellers)) return;
    const firstIndex = new Map<string, number>();
    document.sellers.forEach((seller: Partial<Seller> | undefined, index) => {
      if (typeof seller?.seller_id !== 'string') return;
      const first = firstIndex.get(seller.seller_id);
      if (first === undefined) {
        firstIndex.set(seller.seller_id, index);
        return;
      }
      ctx.addIssue({
        code: 'custom',
        path: ['sellers', index, 'seller_id'],
        message: `seller_id "${seller.seller_id}" is already used by sellers[${first}]: each seller_id must be unique in the file`,
      });
    });
  }, whenObject)
  .meta({ description: 'The sellers.json 1.0 document (IAB Tech Lab): the authorised sellers of this advertising system.' });
export type SellersDocument = z.infer<typeof SellersDocument>;
