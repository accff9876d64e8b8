import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredAnswer } from '../../../src/client/data-client.ts';
import { cacheFileName, createDiskCache, makeDirectory } from '../../../src/client/disk-cache.ts';

const KEY = 'http://127.0.0.1:4321/api/v1/public/data?startDate=2025-01-01&endDate=2025-01-31';
const RECORDS = [{ date: '2025-01-01', txn_count: 3, impr_count: 40, service_revenue: 12.5 }];
const ANSWER: StoredAnswer = { etag: '"mC4a0c9Vw1WQ7i3pVZbLk2Yb0qA"', settledThrough: '2025-01-31', records: RECORDS };
const tempDir = () => join(mkdtempSync(join(tmpdir(), 'client-cache-')), 'nested', 'cache');

describe('disk cache', () => {
  it('reads back what it wrote, from a directory it creates', async () => {
    const dir = tempDir();
    const cache = createDiskCache(dir);
    expect(await cache.get(KEY)).toBeUndefined();
    await cache.set(KEY, ANSWER);
    expect(await createDiskCache(dir).get(KEY)).toEqual(ANSWER);
    // One file per month, no temporary files left behind.
    expect(readdirSync(dir)).toEqual([cacheFileName(KEY)]);
  });

  it('reads a corrupt file, a file of another key or another format as a miss', async () => {
    const dir = tempDir();
    const cache = createDiskCache(dir);
    await cache.set(KEY, ANSWER);
    const file = join(dir, cacheFileName(KEY));
    writeFileSync(file, '{"format":2,"key":"');
    expect(await cache.get(KEY)).toBeUndefined();
    writeFileSync(file, JSON.stringify({ format: 2, key: 'another', answer: ANSWER }));
    expect(await cache.get(KEY)).toBeUndefined();
    // Format 1 held settled records without an ETag: nothing to revalidate, so a miss.
    writeFileSync(file, JSON.stringify({ format: 1, key: KEY, records: RECORDS }));
    expect(await cache.get(KEY)).toBeUndefined();
  });

  it('names files by a hash of the key, so any key is a safe file name', () => {
    expect(cacheFileName(KEY)).toMatch(/^[0-9a-f]{32}\.json$/);
    expect(cacheFileName(`${KEY}x`)).not.toBe(cacheFileName(KEY));
  });

  it('fails a write into a path that cannot be a directory (the client then counts it as a miss)', async () => {
    const parent = mkdtempSync(join(tmpdir(), 'client-cache-'));
    writeFileSync(join(parent, 'file'), 'not a directory');
    await expect(createDiskCache(join(parent, 'file')).set(KEY, ANSWER)).rejects.toThrow();
  });

  it('refuses a directory under /proc with mkdir\'s own error instead of looping on it as a recursive mkdir does', async () => {
    await expect(makeDirectory('/proc/no-such-cache/months')).rejects.toThrow("ENOENT: no such file or directory, mkdir '/proc/no-such-cache'");
    await expect(createDiskCache('/proc/no-such-cache').set(KEY, ANSWER)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('creates every missing parent, accepts an existing directory, and refuses a file in the way', async () => {
    const dir = tempDir();
    await makeDirectory(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    await makeDirectory(dir);
    writeFileSync(join(dir, 'file'), 'not a directory');
    await expect(makeDirectory(join(dir, 'file'))).rejects.toMatchObject({ code: 'ENOTDIR' });
    await expect(makeDirectory(join(dir, 'file', 'below'))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });
});
