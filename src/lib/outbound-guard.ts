/**
 * The one guard in front of every outbound request of ours (sellers' ads.txt, the contact
 * webhook, the LLM provider): a server-side request must never reach the operator's own network
 * because a sellers file, a redirect or a DNS answer pointed there (server-side request forgery,
 * OWASP SSRF prevention cheat sheet).
 *
 * How: an undici dispatcher whose connector resolves the host itself and refuses the connection
 * unless every address of the answer is public unicast. The check runs at connect time on the
 * address actually dialled, so a redirect (each hop opens its own connection through the same
 * dispatcher) and a DNS answer that changes between two lookups (rebinding) are judged like the
 * first request. IP literals in a URL are judged directly (Node skips the lookup for them).
 *
 * Refused: everything ipaddr.js does not classify as `unicast`, i.e. loopback (127.0.0.0/8, ::1),
 * private (RFC 1918), link-local (169.254.0.0/16 with the cloud metadata address, fe80::/10),
 * carrier-grade NAT (100.64.0.0/10, RFC 6598), unique-local (fc00::/7, RFC 4193), multicast,
 * unspecified (0.0.0.0 and ::, which Linux connects to the local host), broadcast, the
 * documentation and other reserved blocks (RFC 6890), and IPv6 forms that embed an IPv4
 * address (IPv4-mapped addresses are judged as the IPv4 address; 6to4, Teredo, NAT64 and the
 * deprecated IPv4-compatible `::/96`, RFC 4291 section 2.5.5.1, are refused: `::7f00:1` reaches
 * 127.0.0.1 through some stacks). A DNS answer with one refused address among public ones is
 * refused whole.
 *
 * Ports: 80 and 443 only, on every hop (a redirect to `:6379` or `:11211` talks to a local
 * service's protocol even on a public address), plus the ports the operator allows
 * (OUTBOUND_ALLOW_PORTS, for a webhook receiver or an LLM provider on another port).
 *
 * An operator who points a destination at a local address on purpose opts in per destination
 * (CONTACT_WEBHOOK_ALLOW_PRIVATE, LLM_ALLOW_PRIVATE; a loopback LLM_BASE_URL counts as such);
 * sellers' sites never can.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The `code` of a refusal, as Node's system errors carry theirs (ECONNREFUSED...). */
export const OUTBOUND_REFUSED = 'ERR_OUTBOUND_REFUSED';

/** Words for ipaddr.js' range names, as the refusal says them. */
const RANGE_WORDS: Record<string, string> = {
  loopback: 'loopback',
  private: 'private',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  uniqueLocal: 'unique-local',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  reserved: 'reserved',
};

/** Why `address` must not be dialled (the kind of address), or undefined for a public unicast one. */
export function refusedRange(address: string): string | undefined {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return 'not an IP address';
  // The URL parser's spelling of an IPv6 literal (`::8.8.8.8` -> `::808:808`): ipaddr.js reads
  // a dotted tail as IPv4-mapped, the socket layer as the address it spells.
  const canonical = bare.includes(':') ? (URL.parse(`http://[${bare}]/`)?.hostname.slice(1, -1) ?? bare) : bare;
  if (isIpv4Compatible(ipaddr.parse(canonical))) return 'deprecated IPv4-compatible';
  const range = ipaddr.process(bare).range();
  return range === 'unicast' ? undefined : (RANGE_WORDS[range] ?? `special-purpose (${range})`);
}

/**
 * `::/96` but `::` and `::1`: IPv4-compatible addresses, deprecated by RFC 4291 section 2.5.5.1.
 * ipaddr.js calls `::7f00:1` unicast (and reads `::8.8.8.8` as 8.8.8.8); some stacks reach the
 * embedded IPv4 address through them, so none is dialled.
 */
function isIpv4Compatible(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  if (address.kind() !== 'ipv6') return false;
  const { parts } = address as ipaddr.IPv6;
  return parts.slice(0, 6).every((part) => part === 0) && !(parts[6] === 0 && (parts[7] === 0 || parts[7] === 1));
}

/** The ports every guarded request may use (RFC 9110 section 4.2: http and https). */
export const DEFAULT_PORTS: readonly number[] = [80, 443];

/** True for localhost, 127.0.0.0/8 and ::1 (IPv4-mapped spellings included). */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
}

/** A connection the guard refused; `message` is the reason a report or a log may show. */
export class OutboundRefusedError extends Error {
  override name = 'OutboundRefusedError';
  readonly code = OUTBOUND_REFUSED;
  readonly host: string;
  readonly address: string;
  readonly range: string;
  constructor(host: string, address: string, range: string, message?: string) {
    super(message ?? (host === address ? `${address} is a ${range} address, not a public one` : `${host} resolves to ${address}, a ${range} address, not a public one`));
    this.host = host;
    this.address = address;
    this.range = range;
  }
}

/** The guard's refusal anywhere in `error`'s cause chain (fetch wraps it in a TypeError). */
export function outboundRefusal(error: unknown): OutboundRefusedError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof OutboundRefusedError) return e;
  }
  return undefined;
}

export interface GuardOptions {
  /** Name resolution (dns.lookup's signature); tests inject answers. */
  lookup?: LookupFunction;
  /** Why an address is refused, undefined to allow it (default `refusedRange`); tests only. */
  refusal?: (address: string) => string | undefined;
  /** Ports allowed besides 80 and 443 (OUTBOUND_ALLOW_PORTS). */
  allowPorts?: readonly number[] | undefined;
}

/** The refusal of a connection to a port the guard does not allow. */
function portRefusal(host: string, port: number): OutboundRefusedError {
  return new OutboundRefusedError(host, host, `port ${port}`, `${host}:${port}: port ${port} is not 80 or 443, nor one OUTBOUND_ALLOW_PORTS allows`);
}

/** The port a connection goes to: the URL's, or its scheme's default (undici passes '' for it). */
function portOf(port: string | number | undefined | null, protocol: string): number {
  const number = Number(port);
  return Number.isInteger(number) && number > 0 ? number : protocol === 'https:' ? 443 : 80;
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** `lookup`, failing with OutboundRefusedError when any address of the answer is refused. */
function guardedLookup(lookup: LookupFunction, refusal: (address: string) => string | undefined): LookupFunction {
  return (hostname, options, callback) => {
    const done = callback as LookupCallback;
    lookup(hostname, { ...options, all: true }, ((error: NodeJS.ErrnoException | null, answer: string | LookupAddress[], family?: number) => {
      if (error) return done(error, '');
      const addresses: LookupAddress[] = Array.isArray(answer) ? answer : [{ address: answer, family: family ?? 4 }];
      if (addresses.length === 0) return done(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      for (const { address } of addresses) {
        const range = refusal(address);
        if (range !== undefined) return done(new OutboundRefusedError(hostname, address, range), '');
      }
      if (options.all) return done(null, addresses);
      return done(null, addresses[0]!.address, addresses[0]!.family); // length checked above
    }) as never);
  };
}

/**
 * The guard's verdict on `hostname` without connecting: its refusal, or undefined when every
 * address it resolves to is public. For callers that judge a name they will not dial themselves
 * (sellers:verify's test mode); a real request relies on the connect-time check instead.
 */
export async function refusalOf(hostname: string, options: GuardOptions = {}): Promise<OutboundRefusedError | undefined> {
  const refusal = options.refusal ?? refusedRange;
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const range = refusal(host);
    return range === undefined ? undefined : new OutboundRefusedError(host, host, range);
  }
  const lookup = guardedLookup(options.lookup ?? (dnsLookup as LookupFunction), refusal);
  return new Promise((resolve, reject) => {
    lookup(host, { all: true }, (error) => {
      if (error instanceof OutboundRefusedError) resolve(error);
      else if (error) reject(error);
      else resolve(undefined);
    });
  });
}

/** undici, loaded on the first guarded request: processes that send none never pay for it. */
let undici: Promise<typeof import('undici')> | undefined;

/**
 * A fetch whose every connection (redirect hops included) goes through the guard. Its keep-alive
 * pool lives as long as the function: make one per destination and keep it.
 */
export function createGuardedFetch(options: GuardOptions = {}): typeof fetch {
  const refusal = options.refusal ?? refusedRange;
  const ports = new Set([...DEFAULT_PORTS, ...(options.allowPorts ?? [])]);
  let ready: Promise<{ fetch: (typeof import('undici'))['fetch']; dispatcher: import('undici').Agent }> | undefined;
  const prepare = async () => {
    const { Agent, buildConnector, fetch } = await (undici ??= import('undici'));
    const lookup = options.lookup ?? (dnsLookup as LookupFunction);
    const connect = buildConnector({ lookup: guardedLookup(lookup, refusal) });
    const dispatcher = new Agent({
      connect: (opts, callback) => {
        // An IP literal is never looked up (net.connect skips it): judge it here.
        const host = opts.hostname.replace(/^\[|\]$/g, '');
        const range = isIP(host) ? refusal(host) : undefined;
        if (range !== undefined) return callback(new OutboundRefusedError(host, host, range), null);
        const port = portOf(opts.port, opts.protocol);
        if (ports.has(port)) return connect(opts, callback);
        // Never dialled. An address refusal, when there is one, is the better reason to report.
        refusalOf(host, { lookup, refusal }).then(
          (addressRefusal) => callback(addressRefusal ?? portRefusal(host, port), null),
          () => callback(portRefusal(host, port), null),
        );
        return undefined;
      },
    });
    return { fetch, dispatcher };
  };
  // undici's own fetch with its own Agent: Node's built-in fetch is another undici version.
  return (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    const { fetch: undiciFetch, dispatcher } = await (ready ??= prepare());
    return undiciFetch(input as never, { ...(init as object), dispatcher } as never);
  }) as unknown as typeof fetch;
}

/** The shared guarded fetches of the process (real DNS), by allowed extra ports, created on first use. */
const publicOnly = new Map<string, typeof fetch>();

/** The guarded fetch of the process that may also use `allowPorts` (OUTBOUND_ALLOW_PORTS). */
export function publicFetch(allowPorts: readonly number[] = []): typeof fetch {
  const key = [...allowPorts].sort((a, b) => a - b).join(',');
  let guarded = publicOnly.get(key);
  if (guarded === undefined) publicOnly.set(key, (guarded = createGuardedFetch({ allowPorts })));
  return guarded;
}
