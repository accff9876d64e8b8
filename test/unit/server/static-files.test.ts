/**
 * Prebuilt files: the build step (precompress) and what the server makes of its manifest
 * (StaticFiles): start-up reads the manifest alone, bodies come from disk into a byte-bounded
 * hot cache, and a file that changed under the running process is refused, not mixed.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { HttpError } from '../../../src/lib/http-error.ts';
import { strongEtag } from '../../../src/lib/http-validators.ts';
import { precompress } from '../../../src/server/precompress.ts';
import { BODY_OVERHEAD_BYTES, StaticFiles } from '../../../src/server/static-files.ts';
import { parseStaticManifest, readStaticManifest, STATIC_MANIFEST_PATH, StaticManifestError } from '../../../src/server/static-manifest.ts';

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/** A dist folder with the given dist/client files, precompressed as the build does. */
async function builtDist(files: Record<string, string | Buffer>): Promise<{ dist: string; client: string }> {
  const dist = mkdtempSync(join(tmpdir(), 'static-files-'));
  scratch.push(dist);
  const client = join(dist, 'client');
  for (const [name, bytes] of Object.entries(files)) {
    mkdirSync(join(client, name, '..'), { recursive: true });
    writeFileSync(join(client, name), bytes);
  }
  mkdirSync(join(dist, 'server'));
  await precompress(client, join(dist, STATIC_MANIFEST_PATH));
  return { dist, client };
}

const page = (title: string) => `<!doctype html><title>${title}</title>${'<p>The same paragraph about sellers.json, again and again.</p>'.repeat(60)}`;

/** A logger that keeps its warnings. */
function warnings(): { log: { warn: (obj: object, msg: string) => void }; lines: string[] } {
  const lines: string[] = [];
  return { log: { warn: (_obj, msg) => void lines.push(msg) }, lines };
}

async function bytesOf(body: Buffer | ReadStream): Promise<Buffer> {
  if (Buffer.isBuffer(body)) return body;
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('the build step (precompress)', () => {
  it('writes .br and .gz beside compressible files of 1 KiB or more, only when smaller, and removes stale copies', async () => {
    const noise = randomBytes(4096).toString('latin1'); // text/plain, but brotli and gzip cannot shrink it
    const { dist, client } = await builtDist({
      'index.html': page('Home'),
      'news/first/index.html': page('First'),
      'tiny.txt': 'small',
      'noise.txt': Buffer.from(noise, 'latin1'),
      'noise.txt.br': 'left over from an earlier build',
      'image.png': randomBytes(3000),
    });
    for (const name of ['index.html', 'news/first/index.html']) {
      expect(brotliDecompressSync(readFileSync(join(client, `${name}.br`))).toString()).toBe(readFileSync(join(client, name), 'utf8'));
      expect(gunzipSync(readFileSync(join(client, `${name}.gz`))).toString()).toBe(readFileSync(join(client, name), 'utf8'));
    }
    for (const name of ['tiny.txt', 'noise.txt', 'image.png']) {
      expect(existsSync(join(client, `${name}.br`)), name).toBe(false);
      expect(existsSync(join(client, `${name}.gz`)), name).toBe(false);
    }

    const manifest = await readStaticManifest(join(dist, STATIC_MANIFEST_PATH));
    expect(Object.keys(manifest.files)).toEqual(['/image.png', '/index.html', '/news/first/index.html', '/noise.txt', '/tiny.txt']);
    const home = manifest.files['/index.html']!;
    const identity = readFileSync(join(client, 'index.html'));
    const br = readFileSync(join(client, 'index.html.br'));
    expect(home).toEqual({
      file: 'index.html',
      size: identity.length,
      etag: strongEtag(identity),
      contentType: 'text/html; charset=utf-8',
      cacheControl: 'public, max-age=0, must-revalidate',
      br: { size: br.length, digest: strongEtag(br) },
      gzip: { size: readFileSync(join(client, 'index.html.gz')).length, digest: strongEtag(readFileSync(join(client, 'index.html.gz'))) },
    });
    expect(manifest.files['/noise.txt']).not.toHaveProperty('br');
    expect(manifest.files['/image.png']).toMatchObject({ contentType: 'image/png', cacheControl: 'public, max-age=3600' });
  });

  it('takes an earlier run’s copies for copies, not for files, when run again over the same folder', async () => {
    const { dist, client } = await builtDist({ 'index.html': page('Home') });
    await precompress(client, join(dist, STATIC_MANIFEST_PATH));
    expect(Object.keys((await readStaticManifest(join(dist, STATIC_MANIFEST_PATH))).files)).toEqual(['/index.html']);
  });
});

describe('the manifest reader', () => {
  it('refuses a malformed manifest with the problem, its line and what to do', () => {
    const bad = (...lines: unknown[]) => () => parseStaticManifest(lines.map((line) => JSON.stringify(line)).join('\n'), '/srv/dist/server/static-manifest.ndjson');
    const entry = { path: '/a.html', file: 'a.html', size: 1, etag: `"${'x'.repeat(27)}"`, contentType: 'text/html', cacheControl: 'no-store' };
    expect(bad({ version: 2 }, entry, { ...entry, path: '/b.html', file: '../etc/passwd' })).toThrowErrorMatchingInlineSnapshot(
      `[StaticManifestError: the static manifest /srv/dist/server/static-manifest.ndjson is malformed at line 3 (file): must be a relative path inside dist/client: run \`npm run build\`]`,
    );
    expect(bad({ version: 2 }, { ...entry, path: 'a.html' })).toThrow(/is malformed at line 2 \(path\): .*run `npm run build`$/);
    expect(bad({ version: 2 }, { ...entry, edition: -1 })).toThrow(/is malformed at line 2 \(edition\): .*run `npm run build`$/);
    // A manifest of the first format (one JSON document) names its version as the problem.
    expect(bad({ version: 1, files: {} })).toThrow(/is malformed at line 1 \(version\): .*run `npm run build`$/);
    expect(() => parseStaticManifest('', 'm.ndjson')).toThrow(/^the static manifest m\.ndjson is empty: run `npm run build`$/);
    expect(() => parseStaticManifest('{"version":2}\n{"path":', 'm.ndjson')).toThrow(/^the static manifest m\.ndjson is not JSON at line 2 \(.+\): run `npm run build`$/);
    // The checked lines, in order, a blank last line allowed.
    expect(parseStaticManifest(`${JSON.stringify({ version: 2 })}\n${JSON.stringify(entry)}\n${JSON.stringify({ ...entry, edition: 5 })}\n`, 'm.ndjson')).toEqual({
      version: 2,
      files: { '/a.html': { file: 'a.html', size: 1, etag: entry.etag, contentType: 'text/html', cacheControl: 'no-store' } },
      editions: [{ at: 5, files: { '/a.html': { file: 'a.html', size: 1, etag: entry.etag, contentType: 'text/html', cacheControl: 'no-store' } } }],
    });
  });

  it('tells a missing manifest from a malformed one', async () => {
    const error = await readStaticManifest(join(tmpdir(), 'no-such-dist', STATIC_MANIFEST_PATH)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StaticManifestError);
    expect((error as StaticManifestError).reason).toBe('missing');
    expect((error as Error).message).toMatch(/^no static manifest at .+: run `npm run build`$/);
  });
});

describe('StaticFiles', () => {
  it('starts from the manifest alone: with every content file gone, it loads, aliases directory pages, and holds no bytes', async () => {
    const { dist, client } = await builtDist({ 'index.html': page('Home'), 'news/index.html': page('News'), 'favicon.svg': '<svg xmlns="http://www.w3.org/2000/svg"/>' });
    // Nothing of dist/client is left to read: a loader that opened any of it would fail here.
    rmSync(client, { recursive: true });
    const statics = await StaticFiles.load(dist, { maxBytes: 1024 * 1024, log: warnings().log });
    expect(statics.get('/news')).toBe(statics.get('/news/index.html'));
    expect(statics.get('/news/')).toBe(statics.get('/news/index.html'));
    expect(statics.get('/')).toBe(statics.get('/index.html'));
    expect(statics.get('/news/index.html')).toMatchObject({ contentType: 'text/html; charset=utf-8', br: { size: expect.any(Number) } });
    expect(statics.get('/favicon.svg')?.identity.size).toBe(41);
    expect(statics.bytes).toBe(0);
  });

  it('reads a body on first demand, then answers it from the hot cache', async () => {
    const { dist, client } = await builtDist({ 'index.html': page('Home') });
    const statics = await StaticFiles.load(dist, { maxBytes: 1024 * 1024, log: warnings().log });
    const file = statics.get('/')!;
    expect(statics.cached(file.br!)).toBeUndefined();
    const read = await statics.read(file.br!);
    expect(read).toEqual(readFileSync(join(client, 'index.html.br')));
    expect(statics.cached(file.br!)).toBe(read);
    expect(statics.bytes).toBe(file.br!.size + BODY_OVERHEAD_BYTES);
    expect(statics.cached(file.identity)).toBeUndefined();
  });

  it('never holds more than its byte bound, however many distinct files are served', async () => {
    const files: Record<string, Buffer> = {};
    for (let i = 0; i < 60; i++) files[`img/${i}.png`] = randomBytes(10_000 + i);
    const { dist } = await builtDist(files);
    const maxBytes = 128 * 1024; // room for about twelve of them
    const statics = await StaticFiles.load(dist, { maxBytes, log: warnings().log });
    const bodies = Object.keys(files).map((name) => statics.get(`/${name}`)!.identity);
    for (const [i, body] of bodies.entries()) {
      expect(await statics.read(body)).toEqual(files[`img/${i}.png`]);
      expect(statics.bytes).toBeLessThanOrEqual(maxBytes);
    }
    // And when asked for all of them at once.
    await Promise.all(bodies.map((body) => statics.read(body)));
    expect(statics.bytes).toBeLessThanOrEqual(maxBytes);
    expect(bodies.filter((body) => statics.cached(body) !== undefined).length).toBeLessThan(13);
    expect(statics.cached(bodies.at(-1)!)).toBeDefined();
  });

  it('streams a file larger than an eighth of the cache from disk and keeps no copy', async () => {
    const big = randomBytes(40_000);
    const { dist } = await builtDist({ 'big.png': big });
    const statics = await StaticFiles.load(dist, { maxBytes: 256 * 1024, log: warnings().log });
    const body = statics.get('/big.png')!.identity;
    const read = await statics.read(body);
    expect(Buffer.isBuffer(read)).toBe(false);
    expect(await bytesOf(read)).toEqual(big);
    expect(statics.cached(body)).toBeUndefined();
    expect(statics.bytes).toBe(0);
  });

  it.each([
    ['vanished', (path: string) => rmSync(path), /cannot be opened \(ENOENT\)/],
    ['grew', (path: string) => writeFileSync(path, readFileSync(path, 'utf8') + '<p>more</p>'), /it has \d+ bytes, the manifest says \d+/],
    ['changed in place, same size', (path: string) => writeFileSync(path, readFileSync(path, 'utf8').replace('Home', 'Hxme')), /its bytes differ/],
  ])('refuses a file that %s since start-up with a 503, and logs it once', async (_what, change, logged) => {
    const { dist, client } = await builtDist({ 'index.html': page('Home') });
    const { log, lines } = warnings();
    const statics = await StaticFiles.load(dist, { maxBytes: 1024 * 1024, log });
    change(join(client, 'index.html'));
    for (let i = 0; i < 3; i++) {
      const error = await statics.read(statics.get('/')!.identity).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HttpError);
      expect(error).toMatchObject({ status: 503, code: 'service_unavailable' });
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(logged);
    expect(lines[0]).toContain('Build into a new directory and restart');
    expect(statics.bytes).toBe(0);
  });

  it('refuses a streamed file whose size changed', async () => {
    const { dist, client } = await builtDist({ 'big.png': randomBytes(40_000) });
    const statics = await StaticFiles.load(dist, { maxBytes: 64 * 1024, log: warnings().log });
    writeFileSync(join(client, 'big.png'), randomBytes(30_000));
    await expect(statics.read(statics.get('/big.png')!.identity)).rejects.toMatchObject({ status: 503 });
  });
});
