/**
 * For the outbound-guard tests: real local HTTP servers that count what reaches them, and a
 * resolver (dns.lookup's signature) that answers from a table, as a hostile DNS zone would.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';

export interface CountingServer {
  /** `http://host:port` */
  url: string;
  port: number;
  /** Paths requested so far. */
  hits: string[];
  close(): Promise<void>;
}

/** A server on `host` (any 127.0.0.0/8 address is this machine) answering with `respond`, 200 "reached" by default. */
export async function countingServer(host = '127.0.0.1', respond?: (req: IncomingMessage, res: ServerResponse) => void): Promise<CountingServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (respond) return respond(req, res);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('reached');
  });
  server.listen(0, host);
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host}:${port}`,
    port,
    hits,
    close: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A resolver answering `table[hostname]` (one address or several), ENOTFOUND otherwise; records each name asked. */
export function tableLookup(table: Record<string, string | string[]>, asked: string[] = []): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    asked.push(hostname);
    const entry = table[hostname];
    if (entry === undefined) return process.nextTick(() => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })));
    const addresses = (Array.isArray(entry) ? entry : [entry]).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    process.nextTick(() => (options.all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)));
  }) as LookupFunction;
}
