/**
 * Hostile and malformed requests against the real server: each gets a clear 4xx in the
 * interface's error format, limits and caches cannot be steered around, and the process stays up
 * without logging errors for what clients did.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, type RawInit, type RawResponse } from '../helpers/raw-http.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;
let port: number;
beforeAll(async () => {
  server = await startServer({ RATE_LIMIT_DATA_DAY: '2', RATE_LIMIT_DATA_MINUTE: '1000', RATE_LIMIT_CHAT_MINUTE: '1' });
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server?.stop();
});

/** A request exactly as written: no client-side path normalisation. */
const raw = (path: string, init?: RawInit): Promise<RawResponse> => rawRequest(server.url, path, init);

/**
 * Bytes on a socket, the first response's head and body back: once its Content-Length is in,
 * or the server ends the connection (no timer: a busy machine answers late, never partly).
 */
function wire(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    let text = '';
    const complete = () => {
      const headEnd = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, headEnd));
      return headEnd >= 0 && length !== null && Buffer.byteLength(text.slice(headEnd + 4)) >= Number(length[1]);
    };
    socket.on('data', (c) => {
      text += c.toString();
      if (complete()) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
}

const RANGE = '/api/v1/public/data?startDate=2026-01-01&endDate=2026-01-02';

describe('the edge under hostile input', () => {
  it('applies the limits to //-prefixed spellings of a path', async () => {
    const first = await raw(`/${RANGE}`);
    expect(first.status).toBe(200);
    expect(first.headers['x-daily-quota-remaining']).toBe('1');
    await raw(`//${RANGE.slice(1).replace('/public/', '//public/')}`);
    const third = await raw(RANGE);
    expect(third.status).toBe(429);
  });

  it('does not let the Host header steer routing, the cache, or the request URL', async () => {
    const steered = await raw('/stats/?p=1', { headers: { host: '127.0.0.1/api/news?' } });
    expect(steered.status).toBe(200);
    expect(steered.headers['content-type']).toMatch(/^text\/html/);
    const plain = await raw('/stats/?p=1');
    expect(plain.headers['content-type']).toMatch(/^text\/html/);
    const credentials = await raw('/stats/', { headers: { host: 'a@b' } });
    expect(credentials.status).toBe(200);
  });

  it('refuses TRACE and invented methods with a 405 problem, on pages and APIs', async () => {
    for (const path of ['/api/news', '/stats/', '/api/chat', '/']) {
      const res = await raw(path, { method: 'TRACE' });
      expect(res.status, path).toBe(405);
      expect(JSON.parse(res.body)).toMatchObject({ status: 405, code: 'method_not_allowed' });
    }
  });

  it('answers malformed HTTP with a problem body and closes', async () => {
    const text = await wire('GET / HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toContain('content-type: application/problem+json');
    expect(text).toContain('"code":"validation_failed"');
  });

  it('refuses an announced oversize body before inviting it (Expect: 100-continue)', async () => {
    const text = await wire(`POST /api/contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000\r\nExpect: 100-continue\r\n\r\n`);
    expect(text).not.toContain('100 Continue');
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
  });

  it('treats a client that leaves mid-body as gone, not as a server error', async () => {
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write('POST /api/contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":');
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 100);
      });
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.output.filter((l) => /"level":"(error|fatal)"/.test(l))).toEqual([]);
  });

  it('honours q=0 in Accept-Encoding', async () => {
    const noBrotli = await raw('/', { headers: { 'accept-encoding': 'br;q=0, gzip' } });
    expect(noBrotli.headers['content-encoding']).toBe('gzip');
    const identity = await raw('/', { headers: { 'accept-encoding': 'gzip;q=0, br;q=0, identity' } });
    expect(identity.headers['content-encoding']).toBeUndefined();
  });

  it('stays up and logs no error after all of the above', async () => {
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect(server.output.filter((l) => /"level":"(error|fatal)"/.test(l) || /"status":5\d\d/.test(l))).toEqual([]);
  });
});
