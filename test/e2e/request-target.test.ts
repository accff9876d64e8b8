/**
 * One path per request over the real server (issue 31): a raw or encoded backslash is refused
 * before any limit, cache or Astro route can read the path another way; a request carrying a
 * forged log line cannot put one on the server's output; a client that drops mid-body is logged
 * with the status it got (499). Over the real process (`node src/app/main.ts`) and the build in
 * ./dist; requests are sent exactly as written (test/helpers/raw-http.ts).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '../helpers/raw-http.ts';
import { startServer, type RunningServer } from '../helpers/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer({ RATE_LIMIT_DATA_DAY: '5', RATE_LIMIT_DATA_MINUTE: '3' });
});
afterAll(async () => {
  await server?.stop();
});

/** The server's first output line that `match` accepts, as it arrives (event-driven, no polling). */
function lineOf(match: (line: string) => boolean): Promise<string> {
  return new Promise((resolve) => {
    const look = () => {
      const line = server.output.find(match);
      if (line === undefined) return false;
      server.child.stdout!.off('data', look);
      resolve(line);
      return true;
    };
    // Registered after the helper's own listener, so `output` already holds what just arrived.
    if (!look()) server.child.stdout!.on('data', look);
  });
}

const accessLine = (path: string) => (line: string) => line.includes('"msg":"request"') && line.includes(`"path":${JSON.stringify(path)}`);
const FORGED = '{"level":"fatal","msg":"FORGED admin login"}';

describe('one path per request on the real server', () => {
  it('refuses the data API spelled with a backslash, so neither its limits, its quota nor its cache can be stepped around', async () => {
    const ranges = ['startDate=2026-01-01&endDate=2026-01-02', 'startDate=2026-02-01&endDate=2026-02-03'];
    for (const spelling of ['/\\api/v1/public/data', '/api\\v1/public/data', '/%5Capi/v1/public/data', '/x\\..\\api/v1/public/data']) {
      for (const range of ranges) {
        const response = await rawRequest(server.url, `${spelling}?${range}`);
        expect(response.status, spelling).toBe(400);
        expect(JSON.parse(response.body)).toMatchObject({ code: 'validation_failed' });
      }
    }
    // The real path answers, on a day quota none of the above spent.
    const real = await rawRequest(server.url, `/api/v1/public/data?${ranges[1]}`);
    expect(real.status).toBe(200);
    expect(real.headers['x-daily-quota-remaining']).toBe('4');
    expect((await rawRequest(server.url, '/x\\..\\sellers.json')).status).toBe(400);
  });

  it("keeps Astro's image endpoint out of reach, and a forged line off the server's output", async () => {
    const href = encodeURIComponent(`x/favicon.svg?\n${FORGED}\n`);
    for (const target of [`/\\_image?href=${href}&f=webp&w=10`, `/%5C_image?href=${href}&f=webp&w=10`, `/%5c_image?href=${href}`, `//_image?href=${href}`, `/_IMAGE?href=${href}`]) {
      const response = await rawRequest(server.url, target);
      expect(response.status, target).toBeGreaterThanOrEqual(400);
      expect(response.status, target).toBeLessThan(500);
    }
    await lineOf(accessLine('/_IMAGE'));
    expect(server.output.filter((line) => line.startsWith(FORGED) || (line.includes('FORGED') && !line.startsWith('{"level":"info"')))).toEqual([]);
    // Every line the server wrote is one JSON object of its own log.
    expect(server.output.filter((line) => !/^\{"level":"\w+","time":"[^"]+","pid":\d+,/.test(line))).toEqual([]);
  });

  it('logs a client that drops mid-body with 499, the status it got', async () => {
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(new URL(server.url).port), '127.0.0.1', () => {
        socket.write(`POST /api/contact HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":`, () => {
          socket.destroy();
          resolve();
        });
      });
      socket.on('error', reject);
    });
    const line = JSON.parse(await lineOf((l) => l.includes('"method":"POST"') && l.includes('"path":"/api/contact"'))) as { status: number; aborted?: boolean };
    expect(line).toMatchObject({ status: 499, aborted: true });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  });
});
