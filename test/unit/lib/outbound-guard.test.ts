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
    const guarded = createGuardedFetch({ lookup: tableLookup({ 'internal.test': address }) });
    expect(await attempt(guarded, `http://internal.test:${inside.port}/x`)).toBe(`internal.test resolves to ${address}, a ${range} address, not a public one`);
  });

  it('reaches the same server through the same name when the guard is not in the way', async () => {
    const before = inside.hits.length;
    const unguarded = createGuardedFetch({ lookup: tableLookup({ 'internal.test': '127.0.0.1' }), refusal: () => undefined });
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
      });
      expect(await attempt(guarded, `http://public.test:${outside.port}/named`)).toBe('internal.test resolves to 127.0.0.1, a loopback address, not a public one');
      expect(await attempt(guarded, `http://public.test:${outside.port}/literal`)).toBe('127.0.0.1 is a loopback address, not a public one');
      expect(outside.hits).toEqual(['/named', '/literal']);
      expect(inside.hits.slice(before)).toEqual([]);
    } finally {
      await outside.close();
    }
  });

  it('classifies public unicast addresses as allowed', () => {
    expect(['93.184.215.14', '8.8.8.8', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'].map(refusedRange)).toEqual([undefined, undefined, undefined]);
    expect(refusedRange('2002:7f00:1::1')).toBe('special-purpose (6to4)');
    expect(refusedRange('64:ff9b::7f00:1')).toBe('special-purpose (rfc6052)');
  });
});
