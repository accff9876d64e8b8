/**
 * Prebuilt files through the real server (`node src/app/main.ts`) and the real build in dist/:
 * the precompressed copies the build wrote are what goes out, negotiation, validators, HEAD and
 * 405 behave as before, start-up needs nothing of dist/client but the manifest's word, and a
 * file rewritten under the running server is refused with a 503 problem, logged once.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strongEtag } from '../../src/lib/http-validators.ts';
import { STATIC_MANIFEST_PATH } from '../../src/server/static-manifest.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';
import { linesOf, runToExit } from './startup-run.ts';

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

/**
 * A DIST_DIR beside the real build: dist/server's modules linked (inside the project, so they
 * resolve node_modules), its manifest copied, and dist/client copied (or left empty) so a test
 * may change it.
 */
function distCopy({ client = true }: { client?: boolean } = {}): string {
  mkdirSync('test-results', { recursive: true });
  const dist = resolve(mkdtempSync(join('test-results', 'static-files-')));
  scratch.push(dist);
  mkdirSync(join(dist, 'server'));
  for (const name of readdirSync('dist/server')) {
    if (`server/${name}` === STATIC_MANIFEST_PATH) cpSync(join('dist', STATIC_MANIFEST_PATH), join(dist, STATIC_MANIFEST_PATH));
    else symlinkSync(resolve('dist/server', name), join(dist, 'server', name));
  }
  if (client) cpSync('dist/client', join(dist, 'client'), { recursive: true });
  else mkdirSync(join(dist, 'client'));
  return dist;
}

async function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Headers; body: Buffer }> {
  // fetch would decode the coding; node's http keeps the bytes as sent.
  const { request } = await import('node:http');
  return new Promise((resolvePromise, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolvePromise({ status: res.statusCode ?? 0, headers: new Headers(res.headers as Record<string, string>), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('prebuilt files from the build in dist/', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each([
    ['/', 'index.html'],
    ['/sellers.json', 'sellers.json'],
    ['/news', 'news/index.html'],
  ])('serves %s as the build wrote it: the .br/.gz copies, each with its own ETag, Content-Length, HEAD and 304', async (path, file) => {
    const identity = readFileSync(join('dist/client', file));
    const etag = strongEtag(identity);
    for (const [accept, coding, onDisk] of [
      ['gzip, deflate, br', 'br', `${file}.br`],
      ['gzip', 'gzip', `${file}.gz`],
      ['br;q=0.5, gzip', 'gzip', `${file}.gz`],
      ['identity', null, file],
    ] as const) {
      const res = await get(`${server.url}${path}`, { 'accept-encoding': accept });
      expect(res.status, accept).toBe(200);
      expect(res.headers.get('content-encoding'), accept).toBe(coding);
      expect(res.body.equals(readFileSync(join('dist/client', onDisk))), accept).toBe(true);
      expect(res.headers.get('content-length'), accept).toBe(String(res.body.length));
      expect(res.headers.get('etag'), accept).toBe(coding ? etag.replace(/"$/, `-${coding}"`) : etag);
      expect(res.headers.get('vary'), accept).toBe('Accept-Encoding');
      const head = await get(`${server.url}${path}`, { 'accept-encoding': accept }, 'HEAD');
      expect(head.status, accept).toBe(200);
      expect(head.headers.get('content-length'), accept).toBe(String(res.body.length));
      expect(head.body.length, accept).toBe(0);
      const again = await get(`${server.url}${path}`, { 'accept-encoding': accept, 'if-none-match': res.headers.get('etag')! });
      expect(again.status, accept).toBe(304);
      expect(again.headers.get('etag'), accept).toBe(res.headers.get('etag'));
      expect(again.headers.get('content-encoding'), accept).toBeNull();
      expect(again.body.length, accept).toBe(0);
    }
  });

  it('answers the 404 page from its file, with no-store', async () => {
    const res = await get(`${server.url}/no/such/page`, { 'accept-encoding': 'br' });
    expect(res.status).toBe(404);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.equals(readFileSync('dist/client/404.html.br'))).toBe(true);
  });

  it('refuses other methods on a prebuilt file with 405', async () => {
    const res = await get(`${server.url}/sellers.json`, {}, 'DELETE');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('a build changed under the running server', () => {
  it('is refused file by file with a 503 problem, logged once, while unchanged files are served', async () => {
    const dist = distCopy();
    const server = await startServer({ DIST_DIR: dist });
    try {
      // A new build writing over the live one: this file now has other bytes of another length.
      writeFileSync(join(dist, 'client/sellers.json'), '{"version":"1.0","sellers":[]}');
      for (let i = 0; i < 3; i++) {
        const res = await fetch(`${server.url}/sellers.json`, { headers: { 'accept-encoding': 'identity' } });
        expect(res.status).toBe(503);
        expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
        expect(res.headers.get('retry-after')).toBe('60');
        expect(await res.json()).toEqual({
          type: 'about:blank',
          title: 'Service unavailable',
          status: 503,
          code: 'service_unavailable',
          detail: 'This file is being replaced by a new version of the site.',
          resolution: 'Try again in a minute.',
        });
      }
      // Its unchanged copies and other files still answer.
      expect((await fetch(`${server.url}/sellers.json`, { headers: { 'accept-encoding': 'br' } })).status).toBe(200);
      expect((await fetch(`${server.url}/`)).status).toBe(200);
      const logged = server.output.filter((line) => line.includes('a prebuilt file changed since start-up'));
      expect(logged).toHaveLength(1);
      expect(JSON.parse(logged[0]!)).toMatchObject({ level: 'warn', file: join(dist, 'client/sellers.json') });
    } finally {
      await server.stop();
    }
  });
});

describe('start-up', () => {
  it('reads the manifest, not the files: it serves health with dist/client empty, and only a page request notices', async () => {
    const server = await startServer({ DIST_DIR: distCopy({ client: false }) });
    try {
      expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
      expect((await fetch(`${server.url}/`)).status).toBe(503);
    } finally {
      await server.stop();
    }
  });

  it('exits 78 with one line when the manifest is malformed', async () => {
    const dist = distCopy({ client: false });
    writeFileSync(join(dist, STATIC_MANIFEST_PATH), '{"version":2}\n{"path":"/x","file":"x"}\n');
    const run = await runToExit({ DIST_DIR: dist });
    expect(run.code).toBe(78);
    expect(linesOf(run.stderr)).toEqual([`start-up failed: the static manifest ${join(dist, STATIC_MANIFEST_PATH)} is malformed at line 2 (size): Invalid input: expected number, received undefined: run \`npm run build\``]);
  });

  it('exits 66 with one line when the build has no manifest', async () => {
    const dist = distCopy({ client: false });
    rmSync(join(dist, STATIC_MANIFEST_PATH));
    const run = await runToExit({ DIST_DIR: dist });
    expect(run.code).toBe(66);
    expect(linesOf(run.stderr)).toEqual([expect.stringMatching(/^start-up failed: no static manifest at .+static-manifest\.ndjson \(.+\): run `npm run build`$/)]);
  });
});
