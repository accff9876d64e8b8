import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { acceptedEncodings, negotiate, storeBody } from '../../../src/server/content-coding.ts';

describe('static file helpers', () => {
  it('pre-compresses text and picks the encoding the client accepts', () => {
    const text = Buffer.from('hello world '.repeat(500));
    const body = storeBody(text, 'text/html; charset=utf-8');
    const br = negotiate(body, 'gzip, deflate, br');
    expect(br.encoding).toBe('br');
    expect(brotliDecompressSync(br.bytes).equals(text)).toBe(true);
    const gz = negotiate(body, 'gzip');
    expect(gz.encoding).toBe('gzip');
    expect(gunzipSync(gz.bytes).equals(text)).toBe(true);
    expect(negotiate(body, undefined)).toEqual({ bytes: text });
    expect(storeBody(Buffer.from('tiny'), 'text/plain').br).toBeUndefined();
  });

  it('weighs Accept-Encoding by q-value, with q=0 refusing a coding and * standing for the rest', () => {
    const body = storeBody(Buffer.from('x'.repeat(5000)), 'text/plain');
    expect(acceptedEncodings('gzip;q=0.5, BR;q=0.1')).toEqual(new Map([['gzip', 0.5], ['br', 0.1]]));
    expect(negotiate(body, 'gzip;q=0.5, br;q=0.1').encoding).toBe('gzip');
    expect(negotiate(body, 'br;q=0, gzip').encoding).toBe('gzip');
    expect(negotiate(body, 'gzip;q=0, identity').encoding).toBeUndefined();
    expect(negotiate(body, '*').encoding).toBe('br');
    expect(negotiate(body, '*, br;q=0').encoding).toBe('gzip');
  });
});
