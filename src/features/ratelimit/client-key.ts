/**
 * Who a request is, for rate limiting: its client identity.
 *
 * By default the client is the TCP peer: headers are written by the client and prove nothing.
 * Behind reverse proxies, `TRUST_PROXY` says which forwarding hops to believe, and the client is
 * the nearest address no trusted proxy can vouch for:
 * - `{ kind: 'hops', hops: N }`: the N nearest hops (the peer and the N-1 rightmost forwarded
 *   entries) are proxies; the next address to the left is the client (Express's `trust proxy = N`).
 * - `{ kind: 'list', cidrs }`: walk from the peer leftwards while the address lies inside one of
 *   the CIDRs; the first one outside is the client.
 * Entries left of the client are never read, so a client cannot spoof its way past the limits
 * by sending its own `X-Forwarded-For`. An unparseable entry stops the walk at the last
 * believable address, never throws.
 *
 * The chain is `X-Forwarded-For` when present (what nginx, HAProxy and most load balancers
 * append), else `Forwarded` (RFC 7239 `for=`). A proxy that writes only `Forwarded` must drop
 * a client-sent `X-Forwarded-For`, or the client could choose its key.
 *
 * Keys: IPv4 as dotted quad; IPv4-mapped IPv6 (`::ffff:192.0.2.1`, what a dual-stack socket
 * reports) as the IPv4 address; IPv6 as its network of `RATE_LIMIT_IPV6_PREFIX` bits (default
 * /56, `2001:db8:1::/56`), because one subscriber is routinely given a whole /64 and often a /56
 * or /48 (RFC 6177; RIPE-690 recommends /56 for residential customers), and could otherwise
 * rotate addresses at will. /56 is also express-rate-limit 8's `ipv6Subnet` default. An operator
 * whose clients sit in one shared /56 (a campus, a mobile carrier) sets a longer prefix.
 */
import type { IncomingHttpHeaders } from 'node:http';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
type Range = [Address, number];

/** Forwarded entries read at most: enough for any real proxy chain, bounded against abuse. */
export const MAX_CHAIN = 32;

/**
 * `TRUST_PROXY`: which `X-Forwarded-For` / `Forwarded` hops to believe when identifying a client.
 * `false` (default): none, the socket address is the client. A number N: the N nearest proxies.
 * A comma-separated list of addresses or CIDRs: exactly those proxies, each item read strictly
 * (`parseProxyRange`: ipaddr.js, no /0, no host bits). Hop counts above MAX_CHAIN are refused:
 * the limiter never reads that far, so they would mean "every hop", like `true`.
 */
export type TrustProxy = { kind: 'none' } | { kind: 'hops'; hops: number } | { kind: 'list'; cidrs: string[] };

/** Key of a request whose peer address is unknown (socket already gone). */
export const UNKNOWN_CLIENT = 'unknown';

/** `RATE_LIMIT_IPV6_PREFIX` default: the network length that keys one IPv6 client. */
export const DEFAULT_IPV6_PREFIX = 56;

export function clientKeyOf(remoteAddress: string | undefined, headers: IncomingHttpHeaders, trust: TrustProxy, ipv6Prefix = DEFAULT_IPV6_PREFIX): string {
  const peer = parseAddress(remoteAddress);
  if (peer === null) return UNKNOWN_CLIENT;
  if (trust.kind === 'none') return keyOfAddress(peer, ipv6Prefix);

  // Nearest first: the peer, then forwarded entries from the right.
  const chain = forwardedChain(headers).reverse();
  const ranges = trust.kind === 'list' ? rangesOf(trust.cidrs) : [];
  let client = peer;
  for (let i = 0; i < chain.length; i++) {
    const trusted = trust.kind === 'hops' ? i < trust.hops : inRanges(client, ranges);
    if (!trusted) break;
    const next = parseAddress(chain[i]);
    if (next === null) break;
    client = next;
  }
  return keyOfAddress(client, ipv6Prefix);
}

/**
 * Whether the TCP peer is a proxy `trust` names: any peer for a hop count (the operator says
 * every request comes through one), a peer inside the list's ranges otherwise, never for none.
 * Headers such a proxy writes (X-Request-Id) may be believed; a client's own may not.
 */
export function isTrustedProxy(remoteAddress: string | undefined, trust: TrustProxy): boolean {
  if (trust.kind === 'none') return false;
  if (trust.kind === 'hops') return true;
  const peer = parseAddress(remoteAddress);
  return peer !== null && inRanges(peer, rangesOf(trust.cidrs));
}

/** The rate-limit key of an address: IPv4 itself, IPv6 its network of `ipv6Prefix` bits (1-128). */
export function keyOfAddress(address: Address, ipv6Prefix = DEFAULT_IPV6_PREFIX): string {
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.map((part, i) => {
    // Bits of this 16-bit group that belong to the prefix: all, none, or the leading few.
    const kept = Math.min(16, Math.max(0, ipv6Prefix - 16 * i));
    return kept === 0 ? 0 : part & (0xffff << (16 - kept)) & 0xffff;
  });
  return `${new ipaddr.IPv6(parts).toRFC5952String()}/${ipv6Prefix}`;
}

/**
 * Parse one address as it appears in a socket, an X-Forwarded-For entry or a Forwarded `for=`
 * value: optional quotes, `[v6]:port`, `v4:port`, a zone id. Only four-part decimal IPv4 is
 * accepted (not `127.1` or `0x7f.1`). Returns null for anything else (`unknown`, `_hidden`).
 */
export function parseAddress(raw: string | undefined): Address | null {
  if (raw === undefined) return null;
  let s = raw.trim();
  if (s.length === 0 || s.length > 100) return null;
  if (s.startsWith('"') && s.endsWith('"') && s.length >= 2) s = s.slice(1, -1);
  if (s.startsWith('[')) {
    const end = s.indexOf(']');
    if (end === -1) return null;
    s = s.slice(1, end);
  } else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) {
    s = s.slice(0, s.lastIndexOf(':'));
  }
  const zone = s.indexOf('%');
  if (zone !== -1) s = s.slice(0, zone);
  if (ipaddr.IPv4.isValidFourPartDecimal(s)) return ipaddr.IPv4.parse(s);
  if (!s.includes(':') || !ipaddr.IPv6.isValid(s)) return null;
  const v6 = ipaddr.IPv6.parse(s);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address() : v6;
}

/** The forwarding chain, leftmost (claimed origin) first, at most MAX_CHAIN entries from the right. */
function forwardedChain(headers: IncomingHttpHeaders): string[] {
  const xff = headerText(headers['x-forwarded-for']);
  if (xff !== undefined) return xff.split(',').slice(-MAX_CHAIN);
  const forwarded = headerText(headers['forwarded']);
  if (forwarded !== undefined) return forwardedFor(forwarded).slice(-MAX_CHAIN);
  return [];
}

function headerText(value: string | string[] | undefined): string | undefined {
  const text = Array.isArray(value) ? value.join(',') : value;
  return text === undefined || text.trim() === '' ? undefined : text;
}

/**
 * The `for=` value of each element of an RFC 7239 Forwarded header, in order. An element
 * without `for=` yields '' so that positions (hops) are preserved; '' never parses.
 */
export function forwardedFor(value: string): string[] {
  const result: string[] = [];
  for (const element of splitOutsideQuotes(value, ',')) {
    let found = '';
    for (const pair of splitOutsideQuotes(element, ';')) {
      const eq = pair.indexOf('=');
      if (eq !== -1 && pair.slice(0, eq).trim().toLowerCase() === 'for') {
        found = pair.slice(eq + 1).trim();
        break;
      }
    }
    result.push(found);
  }
  return result;
}

function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!; // i < length
    if (c === '"') quoted = !quoted;
    else if (c === '\\' && quoted && i + 1 < text.length) {
      current += c + text[i + 1]!; // checked i + 1 < length
      i++;
      continue;
    }
    if (c === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += c;
  }
  parts.push(current);
  return parts;
}

/** Parsed TRUST_PROXY lists, by list (the config object lives for the whole process). */
const parsedRanges = new WeakMap<readonly string[], Range[]>();

function rangesOf(cidrs: readonly string[]): Range[] {
  let ranges = parsedRanges.get(cidrs);
  if (ranges === undefined) {
    ranges = cidrs.flatMap((cidr) => {
      const range = parseRange(cidr);
      return range === null ? [] : [range];
    });
    parsedRanges.set(cidrs, ranges);
  }
  return ranges;
}

/** `10.0.0.0/8`, `2001:db8::/32`, or a bare address (a /32 or /128); null when `parseProxyRange` refuses it. */
export function parseRange(cidr: string): Range | null {
  const parsed = parseProxyRange(cidr);
  return typeof parsed === 'string' ? null : parsed;
}

/**
 * One TRUST_PROXY item, strictly: a four-part decimal IPv4 address or an IPv6 address (no zone
 * id, no brackets, no port), optionally `/bits` with 0 < bits <= 32 or 128. IPv4-mapped ranges
 * (`::ffff:10.0.0.0/104`) become IPv4, as peers do in `parseAddress`. Returns the range, or a
 * sentence saying what is wrong with it (the configuration error quotes it).
 *
 * Refused on purpose: a prefix of 0 (`0.0.0.0/0`, `::/0`) trusts every peer, so any client
 * could write its own X-Forwarded-For and pick its rate-limit key, as `true` would; and host
 * bits set (`10.0.0.1/8`), which is a typo for either `10.0.0.0/8` or `10.0.0.1/32`, and the
 * wider reading would trust far more than meant.
 */
export function parseProxyRange(text: string): Range | string {
  const item = text.trim();
  const [addressText = '', bitsText, ...rest] = item.split('/');
  const v4 = ipaddr.IPv4.isValidFourPartDecimal(addressText);
  const v6 = !v4 && addressText.includes(':') && !addressText.includes('%') && ipaddr.IPv6.isValid(addressText);
  if (rest.length > 0 || (!v4 && !v6)) return `"${item}" is not an IP address or CIDR range`;
  const written = v4 ? ipaddr.IPv4.parse(addressText) : ipaddr.IPv6.parse(addressText);
  const writtenMax = v4 ? 32 : 128;
  if (bitsText !== undefined && (!/^\d{1,3}$/.test(bitsText) || Number(bitsText) > writtenMax)) {
    return `"${item}" has a prefix length outside 0-${writtenMax}`;
  }
  const writtenBits = bitsText === undefined ? writtenMax : Number(bitsText);
  if (writtenBits === 0) return `"${item}" trusts every address, so any client could choose its own rate-limit key: name the proxies`;
  const network = v4 ? ipaddr.IPv4.networkAddressFromCIDR(`${addressText}/${writtenBits}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addressText}/${writtenBits}`);
  if (network.toString() !== written.toString()) {
    return `"${item}" has host bits set: write ${network.toString()}/${writtenBits} for the network or ${written.toString()}/${writtenMax} for one address`;
  }
  if (written.kind() === 'ipv6' && (written as ipaddr.IPv6).isIPv4MappedAddress()) {
    // Host bits are clear, so a mapped address here has a prefix of at least 96.
    if (writtenBits === 96) return `"${item}" trusts every IPv4 address, so any client could choose its own rate-limit key: name the proxies`;
    return [(written as ipaddr.IPv6).toIPv4Address(), writtenBits - 96];
  }
  return [written, writtenBits];
}

function inRanges(address: Address, ranges: readonly Range[]): boolean {
  return ranges.some(([base, bits]) => base.kind() === address.kind() && address.match(base, bits));
}
