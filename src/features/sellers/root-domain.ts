/**
 * The root domain of a host name, as ads.txt (IAB Tech Lab, ads.txt 1.1, "root domain": the
 * public suffix plus one label) and sellers.json 1.0 (`domain`: "the root domain") mean it, from
 * the Public Suffix List bundled in tldts.
 *
 * The list's private section counts (`allowPrivateDomains`): under suffixes such as github.io or
 * blogspot.com each name belongs to a different owner, so "harbour.github.io" is a root domain
 * of its own. A TLD missing from the list (such as the reserved ".example", RFC 2606) is treated
 * as a suffix by the list's default rule "*".
 */
import { getDomain } from 'tldts';

/** "ads.example.co.uk" -> "example.co.uk"; null for a public suffix, an IP address or a single label. */
export function rootDomainOf(host: string): string | null {
  return getDomain(host, { allowPrivateDomains: true });
}
