/**
 * Many clients from one load generator: each request carries an `X-Forwarded-For` naming its
 * client, which a server started with TRUST_PROXY = the generator's address takes as the client's
 * address (rate-limit key). The requests are laid out in advance, one fixed list per connection,
 * so autocannon builds each request's bytes once instead of once per request: the load generator
 * costs the same per request as with one static URL and does not become the bottleneck.
 */

/** The header value of client `n` (0 <= n < 2^24): a distinct IPv4 address in 10.0.0.0/8 (RFC 1918). */
export function forwardedFor(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** 24) throw new RangeError(`client number out of range: ${n}`);
  return `10.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

export interface ClientRequest {
  path: string;
  headers: Record<string, string>;
}

/**
 * The request lists of `connections` connections: `clients` distinct X-Forwarded-For values and
 * `paths` spread over them. Request j of connection c is the global request g = c + j × connections:
 * client g mod `clients`, path g mod `paths.length`. Every list has the same length, long enough
 * that together they name every client once and every path at least once; each connection cycles
 * through its list, so over the run the clients come round in turn (each client's requests spaced
 * `clients` requests apart).
 */
export function connectionRequests(paths: readonly string[], clients: number, connections: number): ClientRequest[][] {
  if (paths.length === 0) throw new RangeError('no paths');
  if (!Number.isInteger(clients) || clients < 1) throw new RangeError(`clients must be a positive integer: ${clients}`);
  if (!Number.isInteger(connections) || connections < 1) throw new RangeError(`connections must be a positive integer: ${connections}`);
  const perConnection = Math.ceil(Math.max(clients, paths.length) / connections);
  const addresses = Array.from({ length: clients }, (_, n) => forwardedFor(n));
  return Array.from({ length: connections }, (_, c) =>
    Array.from({ length: perConnection }, (_, j) => {
      const g = c + j * connections;
      return { path: paths[g % paths.length]!, headers: { 'x-forwarded-for': addresses[g % clients]! } };
    }),
  );
}
