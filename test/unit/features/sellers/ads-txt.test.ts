import { describe, expect, it } from 'vitest';
import { formatRecord, matchSeller, parseAdsTxt } from '../../../../src/features/sellers/ads-txt.ts';
import { adSystemDomainOf, formatReport } from '../../../../src/features/sellers/verify.ts';

const US = 'meridian-exchange.example';

describe('parseAdsTxt (ads.txt 1.1 format)', () => {
  const file = parseAdsTxt(
    [
      '\uFEFF# ads.txt of harbourdaily.example',
      'OWNERDOMAIN=harbourdaily.example',
      'managerdomain = yield-manager.example',
      'CONTACT=ads@harbourdaily.example',
      '',
      'Meridian-Exchange.EXAMPLE , pub-1001 , direct , f08c47fec0942fa0 # our exchange',
      'other-ssp.example, 998877, RESELLER, abc; ext-data=1, more',
      'third.example, 42, DIRECT, cafe, extra-field, another',
      '   ',
      'broken line without commas',
      'half.example, 7',
      'bad.example, 8, PARTNER',
      '\tindented.example,\t9,\tRESELLER\r',
    ].join('\r\n'),
  );

  it('reads records with trimmed fields, lower-cased domain and upper-cased relationship', () => {
    expect(file.records[0]).toEqual({ line: 6, domain: US, accountId: 'pub-1001', relationship: 'DIRECT', certificationAuthorityId: 'f08c47fec0942fa0', extra: [] });
    expect(formatRecord(file.records[0]!)).toBe(`${US}, pub-1001, DIRECT, f08c47fec0942fa0`);
  });

  it('drops the extension after ";" and keeps fields after the fourth', () => {
    expect(file.records[1]).toMatchObject({ line: 7, accountId: '998877', relationship: 'RESELLER', certificationAuthorityId: 'abc', extra: [] });
    expect(file.records[2]).toMatchObject({ line: 8, extra: ['extra-field', 'another'] });
  });

  it('reads variables (any case, spaces around "=") and never as records', () => {
    expect(file.variables).toEqual([
      { line: 2, name: 'OWNERDOMAIN', value: 'harbourdaily.example' },
      { line: 3, name: 'MANAGERDOMAIN', value: 'yield-manager.example' },
      { line: 4, name: 'CONTACT', value: 'ads@harbourdaily.example' },
    ]);
    expect(file.records.map((r) => r.domain)).not.toContain('harbourdaily.example');
  });

  it('counts lines that are not records, variables, comments or blank as invalid, and goes on', () => {
    expect(file.invalidLines).toEqual([10, 11, 12]);
    expect(file.records.at(-1)).toMatchObject({ line: 13, domain: 'indented.example', accountId: '9', relationship: 'RESELLER' });
  });
});

describe('matchSeller', () => {
  const text = [`${US}, pub-1001, DIRECT`, `${US}, int-2001, RESELLER`, `${US}, both-3001, RESELLER`, `${US}, Pub-1003, DIRECT`, 'other.example, pub-1002, DIRECT', 'junk'].join('\n');
  const file = parseAdsTxt(text);

  it('accepts DIRECT for a PUBLISHER, RESELLER for an INTERMEDIARY, either for BOTH', () => {
    expect(matchSeller(file, US, { seller_id: 'pub-1001', seller_type: 'PUBLISHER' })).toMatchObject({ ok: true, record: { line: 1 } });
    expect(matchSeller(file, US, { seller_id: 'int-2001', seller_type: 'INTERMEDIARY' })).toMatchObject({ ok: true, record: { line: 2 } });
    expect(matchSeller(file, US, { seller_id: 'both-3001', seller_type: 'BOTH' })).toMatchObject({ ok: true, record: { line: 3 } });
    expect(matchSeller(parseAdsTxt(`${US}, both-3001, direct`), US, { seller_id: 'both-3001', seller_type: 'BOTH' }).ok).toBe(true);
  });

  it('compares our domain case-insensitively', () => {
    expect(matchSeller(file, 'MERIDIAN-exchange.example', { seller_id: 'pub-1001', seller_type: 'PUBLISHER' }).ok).toBe(true);
  });

  it('refuses the wrong relationship, saying which is expected', () => {
    expect(matchSeller(file, US, { seller_id: 'pub-1001', seller_type: 'INTERMEDIARY' })).toEqual({
      ok: false,
      reason: 'line 1 lists pub-1001 as DIRECT; seller_type INTERMEDIARY must be listed RESELLER',
    });
    expect(matchSeller(file, US, { seller_id: 'int-2001', seller_type: 'PUBLISHER' })).toEqual({
      ok: false,
      reason: 'line 2 lists int-2001 as RESELLER; seller_type PUBLISHER must be listed DIRECT',
    });
  });

  it('refuses an ID that differs only in case (IDs match exactly)', () => {
    expect(matchSeller(file, US, { seller_id: 'pub-1003', seller_type: 'PUBLISHER' })).toEqual({
      ok: false,
      reason: 'line 4 has seller ID "Pub-1003", which differs from "pub-1003" in case (IDs match exactly)',
    });
  });

  it('refuses our domain with other IDs only, listing them', () => {
    expect(matchSeller(file, US, { seller_id: 'pub-1002', seller_type: 'PUBLISHER' })).toEqual({
      ok: false,
      reason: `${US} is listed without seller ID "pub-1002" (found "pub-1001", "int-2001", "both-3001", "Pub-1003")`,
    });
  });

  it('refuses a file without our domain, counting what it ignored', () => {
    expect(matchSeller(parseAdsTxt('other.example, 1, DIRECT\nnonsense\n'), US, { seller_id: '1', seller_type: 'PUBLISHER' })).toEqual({
      ok: false,
      reason: `no line for ${US} among 1 record (1 invalid line ignored, first at line 2)`,
    });
    expect(matchSeller(parseAdsTxt(''), US, { seller_id: '1', seller_type: 'PUBLISHER' })).toEqual({ ok: false, reason: `no line for ${US} among 0 records` });
  });

  it('does not take a variable or a comment for a record', () => {
    const tricky = parseAdsTxt(`# ${US}, pub-1001, DIRECT\nMANAGERDOMAIN=${US}\n`);
    expect(matchSeller(tricky, US, { seller_id: 'pub-1001', seller_type: 'PUBLISHER' }).ok).toBe(false);
  });
});

describe('our domain and the report line', () => {
  it('is the root domain of contact_email, or undefined without one', () => {
    expect(adSystemDomainOf({ version: '1.0', contact_email: 'sellers@mail.Meridian-Exchange.example', sellers: [] } as never)).toBe(US);
    expect(adSystemDomainOf({ version: '1.0', sellers: [] } as never)).toBeUndefined();
  });

  it('puts the verdict first, padded, then the seller, its domain and the detail', () => {
    expect(formatReport({ seller_id: 'pub-1', domain: 'a.example', verdict: 'ok', detail: 'ads.txt line 1: x' })).toBe('ok           pub-1  a.example  ads.txt line 1: x');
    expect(formatReport({ seller_id: 'pub-2', verdict: 'skipped', detail: 'no domain (confidential)' })).toBe('skipped      pub-2  no domain (confidential)');
  });
});
