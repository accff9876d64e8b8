import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { TrustProxy } from '../../../../src/app/config.ts';
import { loadConfig } from '../../../../src/app/config.ts';
import { clientKeyOf, forwardedFor, parseProxyRange, parseRange } from '../../../../src/features/ratelimit/client-key.ts';

const NONE: TrustProxy = { kind: 'none' };
const ONE_HOP: TrustProxy = { kind: 'hops', hops: 1 };
const TWO_HOPS: TrustProxy = { kind: 'hops', hops: 2 };
const PROXIES: TrustProxy = { kind: 'list', cidrs: ['10.0.0.0/8', '2001:db8:ffff::/48', '192.0.2.1'] };

describe('clientKeyOf', () => {
  it('is the socket address by default', () => {
    expect(clientKeyOf('203.0.113.9', {}, NONE)).toBe('203.0.113.9');
  });

  it('ignores X-Forwarded-For and Forwarded unless a proxy is trusted', () => {
    const spoof = { 'x-forwarded-for': '1.2.3.4', forwarded: 'for=5.6.7.8' };
    expect(clientKeyOf('203.0.113.9', spoof, NONE)).toBe('203.0.113.9');
  });

  it('maps IPv4-mapped IPv6 socket addresses to IPv4', () => {
    expect(clientKeyOf('::ffff:203.0.113.9', {}, NONE)).toBe('203.0.113.9');
  });

  it('keys IPv6 clients by their /56 unless told another prefix', () => {
    expect(clientKeyOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd', {}, NONE)).toBe('2001:db8:1::/56');
    expect(clientKeyOf('2001:db8:1:1ff:aaaa:bbbb:cccc:dddd', {}, NONE)).toBe('2001:db8:1:100::/56');
    expect(clientKeyOf('2001:0db8:0001:0002:0000:0000:0000:0001', {}, NONE, 64)).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('fe80::1%eth0', {}, NONE, 64)).toBe('fe80::/64');
    expect(clientKeyOf('::1', {}, NONE, 64)).toBe('::/64');
  });

  it('masks exactly the configured number of bits, from /1 to /128', () => {
    const address = '2001:db8:abcd:12ff:1:2:3:4';
    expect(clientKeyOf(address, {}, NONE, 48)).toBe('2001:db8:abcd::/48');
    expect(clientKeyOf(address, {}, NONE, 60)).toBe('2001:db8:abcd:12f0::/60');
    expect(clientKeyOf(address, {}, NONE, 128)).toBe('2001:db8:abcd:12ff:1:2:3:4/128');
    expect(clientKeyOf(address, {}, NONE, 1)).toBe('::/1');
    expect(clientKeyOf('ffff::1', {}, NONE, 1)).toBe('8000::/1');
    // Two addresses of one /56 share a key; a neighbouring /56 does not.
    expect(clientKeyOf('2001:db8:1:2ff::1', {}, NONE)).toBe(clientKeyOf('2001:db8:1:200::9', {}, NONE));
    expect(clientKeyOf('2001:db8:1:300::1', {}, NONE)).not.toBe(clientKeyOf('2001:db8:1:200::9', {}, NONE));
    // IPv4 is never masked.
    expect(clientKeyOf('203.0.113.9', {}, NONE, 1)).toBe('203.0.113.9');
  });

  it('is "unknown" when the socket has no address', () => {
    expect(clientKeyOf(undefined, { 'x-forwarded-for': '1.2.3.4' }, ONE_HOP)).toBe('unknown');
  });

  describe('with a trusted hop count', () => {
    it('believes the entry the nearest proxy appended, not what the client wrote before it', () => {
      // The client sent "X-Forwarded-For: 1.2.3.4"; the proxy appended the real peer.
      const headers = { 'x-forwarded-for': '1.2.3.4, 198.51.100.20' };
      expect(clientKeyOf('10.0.0.5', headers, ONE_HOP)).toBe('198.51.100.20');
    });

    it('walks as many hops as configured', () => {
      const headers = { 'x-forwarded-for': '1.2.3.4, 198.51.100.20, 10.1.1.1' };
      expect(clientKeyOf('10.0.0.5', headers, TWO_HOPS)).toBe('198.51.100.20');
    });

    it('takes the leftmost entry when the chain is shorter than the hop count', () => {
      expect(clientKeyOf('10.0.0.5', { 'x-forwarded-for': '198.51.100.20' }, TWO_HOPS)).toBe('198.51.100.20');
      expect(clientKeyOf('10.0.0.5', {}, TWO_HOPS)).toBe('10.0.0.5');
    });

    it('reads RFC 7239 Forwarded when there is no X-Forwarded-For', () => {
      const headers = { forwarded: 'for=1.2.3.4, for="[2001:db8:cafe::17]:4711";proto=https;by=10.0.0.5' };
      expect(clientKeyOf('10.0.0.5', headers, ONE_HOP)).toBe('2001:db8:cafe::/56');
    });

    it('keeps hop positions for Forwarded elements without for=', () => {
      expect(forwardedFor('for=1.2.3.4;proto=http, proto=https, For="5.6.7.8"')).toEqual(['1.2.3.4', '', '"5.6.7.8"']);
      expect(clientKeyOf('10.0.0.5', { forwarded: 'for=1.2.3.4, proto=https' }, ONE_HOP)).toBe('10.0.0.5');
    });

    it('reads entries with ports and mapped addresses', () => {
      expect(clientKeyOf('10.0.0.5', { 'x-forwarded-for': '198.51.100.20:5555' }, ONE_HOP)).toBe('198.51.100.20');
      expect(clientKeyOf('10.0.0.5', { 'x-forwarded-for': '[2001:db8::1]:443' }, ONE_HOP, 64)).toBe('2001:db8::/64');
      expect(clientKeyOf('10.0.0.5', { 'x-forwarded-for': '::ffff:198.51.100.20' }, ONE_HOP)).toBe('198.51.100.20');
    });

    it('stops at the last believable address when an entry is garbage', () => {
      for (const garbage of ['unknown', '_hidden', 'not an ip', '999.1.1.1', '127.1', '0x7f.0.0.1', '', ' , ', '[::1', '"', '1.2.3.4.5']) {
        expect(clientKeyOf('10.0.0.5', { 'x-forwarded-for': garbage }, ONE_HOP)).toBe('10.0.0.5');
      }
      expect(clientKeyOf('10.0.0.5', { forwarded: 'for=unknown' }, ONE_HOP)).toBe('10.0.0.5');
    });

    it('joins repeated headers', () => {
      expect(clientKeyOf('10.0.0.5', { forwarded: ['for=1.2.3.4', 'for=198.51.100.20'] as unknown as string }, ONE_HOP)).toBe('198.51.100.20');
    });
  });

  describe('with a list of trusted proxies', () => {
    it('skips addresses inside the trusted CIDRs from the right', () => {
      const headers = { 'x-forwarded-for': '1.2.3.4, 198.51.100.20, 10.9.9.9, 192.0.2.1' };
      expect(clientKeyOf('10.0.0.5', headers, PROXIES)).toBe('198.51.100.20');
    });

    it('ignores forwarding headers from an untrusted peer', () => {
      expect(clientKeyOf('203.0.113.9', { 'x-forwarded-for': '1.2.3.4' }, PROXIES)).toBe('203.0.113.9');
    });

    it('matches IPv6 proxies and IPv4-mapped peers', () => {
      expect(clientKeyOf('2001:db8:ffff:1::7', { 'x-forwarded-for': '198.51.100.20' }, PROXIES)).toBe('198.51.100.20');
      expect(clientKeyOf('::ffff:10.0.0.5', { 'x-forwarded-for': '198.51.100.20' }, PROXIES)).toBe('198.51.100.20');
    });

    it('takes the leftmost address when every hop is a trusted proxy', () => {
      expect(clientKeyOf('10.0.0.5', { 'x-forwarded-for': '10.0.0.7, 10.0.0.6' }, PROXIES)).toBe('10.0.0.7');
    });

    it('accepts the list as TRUST_PROXY spells it', () => {
      const trust = loadConfig({ TRUST_PROXY: '10.0.0.0/8, ::ffff:172.16.0.0/108' }).TRUST_PROXY;
      expect(clientKeyOf('172.16.3.4', { 'x-forwarded-for': '198.51.100.20' }, trust)).toBe('198.51.100.20');
      expect(clientKeyOf('172.32.0.1', { 'x-forwarded-for': '198.51.100.20' }, trust)).toBe('172.32.0.1');
    });
  });

  it('parses ranges strictly', () => {
    expect(parseRange('10.0.0.0/8')?.[1]).toBe(8);
    expect(parseRange('192.0.2.1')?.[1]).toBe(32);
    expect(parseRange('2001:db8::/32')?.[1]).toBe(32);
    expect(parseRange('::ffff:10.0.0.0/104')?.[1]).toBe(8);
    for (const bad of ['10.0.0.0/33', '10.0.0.0/-1', '10.0.0.0/8/8', 'nope', '10.0.0.0/', '2001:db8::/129', '127.0.0.256', '127.1', '10.0.0.0/08x', 'fe80::1%eth0', '[::1]']) {
      expect(parseRange(bad)).toBeNull();
    }
  });

  it('explains why a range is refused, in words the configuration error quotes', () => {
    expect(['0.0.0.0/0', '::/0', '::ffff:0.0.0.0/96', '10.0.0.1/8', '2001:db8::1/32'].map((range) => parseProxyRange(range))).toMatchInlineSnapshot(`
      [
        ""0.0.0.0/0" trusts every address, so any client could choose its own rate-limit key: name the proxies",
        ""::/0" trusts every address, so any client could choose its own rate-limit key: name the proxies",
        ""::ffff:0.0.0.0/96" trusts every IPv4 address, so any client could choose its own rate-limit key: name the proxies",
        ""10.0.0.1/8" has host bits set: write 10.0.0.0/8 for the network or 10.0.0.1/32 for one address",
        ""2001:db8::1/32" has host bits set: write 2001:db8::/32 for the network or 2001:db8::1/128 for one address",
      ]
    `);
  });

  it('never trusts a whole-internet range, even one that reaches it without the configuration', () => {
    for (const cidr of ['0.0.0.0/0', '::/0', '::ffff:0.0.0.0/96']) {
      const trust: TrustProxy = { kind: 'list', cidrs: [cidr] };
      expect(clientKeyOf('203.0.113.9', { 'x-forwarded-for': '1.2.3.4' }, trust)).toBe('203.0.113.9');
    }
  });

  it('never throws and always returns a non-empty key, whatever the headers say', () => {
    const trusts = fc.constantFrom<TrustProxy>(NONE, ONE_HOP, TWO_HOPS, { kind: 'hops', hops: 40 }, PROXIES, { kind: 'list', cidrs: ['garbage', '0.0.0.0/0', '::/0'] });
    const piece = fc.oneof(fc.string(), fc.ipV4(), fc.ipV6(), fc.constantFrom('"', '[', ']', ';', ',', 'for=', '%', ':'));
    const header = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.option(fc.oneof(fc.string(), fc.ipV4(), fc.ipV6()), { nil: undefined }), header, header, trusts, (remote, xff, fwd, trust) => {
        const key = clientKeyOf(remote, { 'x-forwarded-for': xff, forwarded: fwd }, trust);
        expect(key.length).toBeGreaterThan(0);
        expect(key).not.toMatch(/[\s{}]/);
      }),
      { numRuns: 500 },
    );
  });
});
