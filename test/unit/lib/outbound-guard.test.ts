/**
 * The outbound guard against real local servers: a name that resolves to this machine or to an
 * internal network is refused at connect time, on every hop, with the reason; the same request
 * with the guard off reaches the server, so a refusal is the guard's doing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch, outboundRefusal, refusedRange } from '../../../src/lib/outbound-guard.ts';
import { countingServer, tableLookup, type CountingServer } from '../../helpers/outbound.ts';

let inside: CountingServer;
beforeAll(async () => {
  inside = await countingServer('127.0.0.1');
});
afterAll(async () => {
  await inside?.close();
});

/** The guard's reason for refusing `url`, or 'reached' when the request went through. */
async function attempt(doFetch: typeof fetch, url: string): Promise<string> {
  try {
    const response = await doFetch(url, { signal: AbortSignal.timeout(5_000) });
    await response.arrayBuffer();
    return `HTTP ${response.status}`;
  } catch (error) {
    return outboundRefusal(error)?.message ?? `other failure: ${String((error as Error).cause ?? error)}`;
  }
}

describe('the outbound guard', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['fd12:3456::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['192.0.2.10', 'reserved'],
  ])('refuses a name that resolves to %s (%s)', async (address, range) => {
    const guarded = createGuardedFetch({ lookup: tableLookup({ 'internal.test': address }), allowPorts: [inside.port] });
    expect(await attempt(guarded, `http://internal.test:${inside.port}/x`)).toBe(`internal.test resolves to ${address}, a ${range} address, not a public one`);
  });

  it('reaches the same server through the same name when the guard is not in the way', async () => {
    const before = inside.hits.length;
    const unguarded = createGuardedFetch({ lookup: tableLookup({ 'internal.test': '127.0.0.1' }), refusal: () => undefined, allowPorts: [inside.port] });
    expect(await attempt(unguarded, `http://internal.test:${inside.port}/control`)).toBe('HTTP 200');
    expect(inside.hits.slice(before)).toEqual(['/control']);
  });

  it('never lets a refused request reach the server', async () => {
    const before = inside.hits.length;
    const guarded = createGuardedFetch({ lookup: tableLookup({ 'internal.test': '127.0.0.1', 'zero.test': '0.0.0.0', 'mapped.test': '::ffff:127.0.0.1' }) });
    for (const host of ['internal.test', 'zero.test', 'mapped.test']) expect(await attempt(guarded, `http://${host}:${inside.port}/`)).toMatch(/not a public one$/);
    expect(inside.hits.slice(before)).toEqual([]);
  });

  it('refuses an answer that mixes a public address with an internal one', async () => {
    const guarded = createGuardedFetch({ lookup: tableLookup({ 'mixed.test': ['93.184.215.14', '127.0.0.1'] }) });
    expect(await attempt(guarded, `http://mixed.test:${inside.port}/`)).toBe('mixed.test resolves to 127.0.0.1, a loopback address, not a public one');
  });

  it('refuses IP literals, in any spelling the URL parser accepts, without a lookup', async () => {
    const asked: string[] = [];
    const guarded = createGuardedFetch({ lookup: tableLookup({}, asked) });
    expect(await attempt(guarded, `http://127.0.0.1:${inside.port}/`)).toBe('127.0.0.1 is a loopback address, not a public one');
    expect(await attempt(guarded, `http://0x7f.1:${inside.port}/`)).toBe('127.0.0.1 is a loopback address, not a public one');
    expect(await attempt(guarded, `http://[::1]:${inside.port}/`)).toBe('::1 is a loopback address, not a public one');
    expect(await attempt(guarded, `http://[::ffff:7f00:1]:${inside.port}/`)).toBe('::ffff:7f00:1 is a loopback address, not a public one');
    expect(asked).toEqual([]);
  });

  it('refuses a redirect to an internal address, on the hop that goes there', async () => {
    // 127.0.0.2 plays a public site (everything else keeps the real rule); it redirects inside.
    const outside = await countingServer('127.0.0.2', (req, res) => {
      const to = req.url === '/literal' ? `http://127.0.0.1:${inside.port}/` : `http://internal.test:${inside.port}/secret`;
      res.writeHead(302, { location: to }).end();
    });
    try {
      const before = inside.hits.length;
      const guarded = createGuardedFetch({
        lookup: tableLookup({ 'public.test': '127.0.0.2', 'internal.test': '127.0.0.1' }),
        refusal: (address) => (address === '127.0.0.2' ? undefined : refusedRange(address)),
        allowPorts: [outside.port, inside.port],
      });
      expect(await attempt(guarded, `http://public.test:${outside.port}/named`)).toBe('internal.test resolves to 127.0.0.1, a loopback address, not a public one');
      expect(await attempt(guarded, `http://public.test:${outside.port}/literal`)).toBe('127.0.0.1 is a loopback address, not a public one');
      expect(outside.hits).toEqual(['/named', '/literal']);
      expect(inside.hits.slice(before)).toEqual([]);
    } finally {
      await outside.close();
    }
  });

  it('refuses deprecated IPv4-compatible addresses (::/96), by name and as literals (issue 31)', async () => {
    expect(['::7f00:1', '::a00:1', '::8.8.8.8', '::1', '::'].map(refusedRange)).toEqual(['deprecated IPv4-compatible', 'deprecated IPv4-compatible', 'deprecated IPv4-compatible', 'loopback', 'unspecified']);
    const guarded = createGuardedFetch({ lookup: tableLookup({ 'compat.test': '::7f00:1' }), allowPorts: [inside.port] });
    expect(await attempt(guarded, `http://compat.test:${inside.port}/`)).toBe('compat.test resolves to ::7f00:1, a deprecated IPv4-compatible address, not a public one');
    expect(await attempt(guarded, `http://[::7f00:1]:${inside.port}/`)).toBe('::7f00:1 is a deprecated IPv4-compatible address, not a public one');
  });

  it('refuses ports other than 80 and 443 on every hop unless allowed, without connecting (issue 31)', async () => {
    // 127.0.0.2 plays a public site on a port of its own; a second one listens on another port.
    const other = await countingServer('127.0.0.2');
    const outside = await countingServer('127.0.0.2', (_req, res) => res.writeHead(302, { location: `http://public.test:${other.port}/next` }).end());
    try {
      const options = { lookup: tableLookup({ 'public.test': '127.0.0.2' }), refusal: (address: string) => (address === '127.0.0.2' ? undefined : refusedRange(address)) };
      const closed = createGuardedFetch(options);
      expect(await attempt(closed, `http://public.test:${outside.port}/first`)).toBe(`public.test:${outside.port}: port ${outside.port} is not 80 or 443, nor one OUTBOUND_ALLOW_PORTS allows`);
      expect(outside.hits).toEqual([]);
      // The first hop's port allowed: the redirect to another port is refused on its own hop.
      const onePort = createGuardedFetch({ ...options, allowPorts: [outside.port] });
      expect(await attempt(onePort, `http://public.test:${outside.port}/first`)).toBe(`public.test:${other.port}: port ${other.port} is not 80 or 443, nor one OUTBOUND_ALLOW_PORTS allows`);
      expect(outside.hits).toEqual(['/first']);
      expect(other.hits).toEqual([]);
      const both = createGuardedFetch({ ...options, allowPorts: [outside.port, other.port] });
      expect(await attempt(both, `http://public.test:${outside.port}/again`)).toBe('HTTP 200');
      expect(other.hits).toEqual(['/next']);
    } finally {
      await Promise.all([outside.close(), other.close()]);
    }
  });

  it('classifies public unicast addresses as allowed', () => {
    expect(['93.184.215.14', '8.8.8.8', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'].map(refusedRange)).toEqual([undefined, undefined, undefined]);
    expect(refusedRange('2002:7f00:1::1')).toBe('special-purpose (6to4)');
    expect(refusedRange('64:ff9b::7f00:1')).toBe('special-purpose (rfc6052)');
  });
});
