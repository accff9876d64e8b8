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

describe('bodies kept for long', () => {
  it('hold memory of their own, not a slice of a shared pool slab', () => {
    // Under half of Buffer.poolSize, Buffer.from(string) slices node's shared pool.
    const pooled = Buffer.from(`{"status":"Success","data":[${'{"date":"2026-01-01"},'.repeat(60)}{}]}`);
    expect(pooled.buffer.byteLength).toBeGreaterThan(pooled.length);
    const stored = storeBody(pooled, 'application/json; charset=utf-8');
    expect(stored.identity.equals(pooled)).toBe(true);
    expect(stored.identity.buffer.byteLength).toBe(stored.identity.length);
    // A Buffer that already owns its memory is kept as it is.
    const own = Buffer.allocUnsafeSlow(16).fill(1);
    expect(storeBody(own, 'text/plain').identity).toBe(own);
    // A compressed variant made on demand owns its memory too.
    const variant = negotiate(stored, 'br');
    expect(variant.encoding).toBe('br');
    expect(brotliDecompressSync(variant.bytes).equals(pooled)).toBe(true);
    expect(variant.bytes.buffer.byteLength).toBe(variant.bytes.length);
  });
});
