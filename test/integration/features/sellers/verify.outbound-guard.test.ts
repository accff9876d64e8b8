/**
 * sellers:verify never fetches from the operator's own network: a seller domain, or any
 * redirect hop, that resolves to a loopback, private or link-local address is refused, reported
 * per seller as a mismatch with the reason, and nothing of the internal answer is read. A
 * resolver injected into the fetcher plays the hostile DNS; a local fixture server plays the
 * sites (and the internal service that must never be reached).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifySeller } from '../../../../src/features/sellers/verify.ts';
import type { Seller } from '../../../../src/features/sellers/schema.ts';
import { countingServer, tableLookup, type CountingServer } from '../../../helpers/outbound.ts';

const US = 'meridian-exchange.example';
const PUBLIC = '93.184.215.14';
const seller = (seller_id: string, domain: string): Seller => ({ seller_id, seller_type: 'PUBLISHER', name: `Seller ${seller_id}`, domain }) as Seller;

let fixture: CountingServer;
beforeAll(async () => {
  // Logical URL `<scheme>://<host><path>` arrives as `/<scheme>/<host><path>` (baseUrl test mode).
  fixture = await countingServer('127.0.0.1', (req, res) => {
    const url = req.url ?? '';
    if (url === '/https/redirects.example/ads.txt') return void res.writeHead(302, { location: 'http://metadata.example/latest/meta-data/ads.txt' }).end();
    if (url === '/https/literal.example/ads.txt') return void res.writeHead(302, { location: 'http://127.0.0.1:8080/ads.txt' }).end();
    if (url.includes('metadata.example') || url.includes('127.0.0.1')) return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`${US}, pub-1, DIRECT # INTERNAL-SECRET\n`);
    if (url === '/https/fine.example/ads.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end(`${US}, pub-3, DIRECT\n`);
    res.writeHead(404).end();
  });
});
afterAll(async () => {
  await fixture?.close();
});

const lookup = tableLookup({
  'internal.example': '127.0.0.1',
  'rfc1918.example': '10.20.30.40',
  'redirects.example': PUBLIC,
  'literal.example': PUBLIC,
  'fine.example': PUBLIC,
  'metadata.example': '169.254.169.254',
});

describe('sellers:verify and internal addresses', () => {
  it.each([
    ['internal.example', '127.0.0.1, a loopback address'],
    ['rfc1918.example', '10.20.30.40, a private address'],
  ])('refuses a seller domain that resolves to an internal address (%s), as a mismatch with the reason', async (domain, what) => {
    const report = await verifySeller(seller('pub-9', domain), US, { timeoutMs: 2_000, maxBytes: 1024, lookup });
    expect(report.verdict).toBe('mismatch');
    expect(report.detail).toBe(
      [
        `ads.txt: refused https://${domain}/ads.txt: ${domain} resolves to ${what}, not a public one; a seller's site must be on a public address`,
        `app-ads.txt: refused https://${domain}/app-ads.txt: ${domain} resolves to ${what}, not a public one; a seller's site must be on a public address`,
      ].join('; '),
    );
  });

  it('refuses a redirect hop that resolves to an internal address, and never asks it', async () => {
    const before = fixture.hits.length;
    const report = await verifySeller(seller('pub-1', 'redirects.example'), US, { timeoutMs: 2_000, maxBytes: 1024, baseUrl: fixture.url, lookup });
    expect(report.verdict).toBe('mismatch');
    expect(report.detail).toContain(
      "ads.txt: refused http://metadata.example/latest/meta-data/ads.txt: metadata.example resolves to 169.254.169.254, a link-local address, not a public one; a seller's site must be on a public address",
    );
    expect(report.detail).not.toContain('INTERNAL-SECRET');
    expect(fixture.hits.slice(before).filter((hit) => hit.includes('metadata'))).toEqual([]);
  });

  it('refuses a redirect to a loopback IP literal', async () => {
    const before = fixture.hits.length;
    const report = await verifySeller(seller('pub-1', 'literal.example'), US, { timeoutMs: 2_000, maxBytes: 1024, baseUrl: fixture.url, lookup });
    expect(report.detail).toContain("ads.txt: refused http://127.0.0.1:8080/ads.txt: 127.0.0.1 is a loopback address, not a public one; a seller's site must be on a public address");
    expect(fixture.hits.slice(before).filter((hit) => hit.includes('127.0.0.1'))).toEqual([]);
  });

  it('still verifies a seller whose site is public', async () => {
    const report = await verifySeller(seller('pub-3', 'fine.example'), US, { timeoutMs: 2_000, maxBytes: 1024, baseUrl: fixture.url, lookup });
    expect(report).toMatchObject({ verdict: 'ok', detail: `ads.txt line 1: ${US}, pub-3, DIRECT` });
  });
});
