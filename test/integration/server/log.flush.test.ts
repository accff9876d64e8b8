/**
 * A buffered logger (production: 64 KiB writes) still writes a lone line within
 * LOG_FLUSH_INTERVAL_MS while the process idles. Before, a `contact delivery failed` warning
 * waited for a block more of log or for SIGTERM, and request lines lagged by minutes. The waits
 * are for the line itself (event-driven); the timeouts are safety nets, far above the one-second
 * interval, so a busy machine cannot fail them but a line that waits for SIGTERM does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnOwned, type OwnedProcess } from '../../helpers/processes.ts';
import { startServer, type RunningServer } from '../../helpers/server.ts';

/** Far above LOG_FLUSH_INTERVAL_MS: only a line held until exit misses it. */
const SAFETY_NET_MS = 30_000;

describe('the buffered logger', () => {
  let child: OwnedProcess | undefined;
  let server: RunningServer | undefined;
  afterEach(async () => {
    await child?.stop('SIGKILL');
    await server?.stop('SIGKILL');
    child = undefined;
    server = undefined;
  });

  it('writes a single warning of an idle process without waiting for more lines or for exit', async () => {
    const script = `
      const { createLogger } = await import('./src/server/log.ts');
      const log = createLogger({ level: 'info', buffered: true });
      log.warn({ attempt: 1 }, 'contact delivery failed');
      setInterval(() => {}, 60_000); // idle, as a server between requests
    `;
    child = spawnOwned(process.execPath, ['--input-type=module', '-e', script]);
    await child.waitForLine(/"msg":"contact delivery failed"/, SAFETY_NET_MS);
    expect(child.child.exitCode).toBeNull();
    expect(JSON.parse(child.output().split('\n').find((line) => line.includes('contact delivery failed'))!)).toMatchObject({ level: 'warn', attempt: 1 });
  });

  it('writes the request line of the one request an idle production server answered', async () => {
    server = await startServer({ NODE_ENV: 'production', LOG_LEVEL: 'info' });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    const lineOf = () => server!.output.find((line) => line.includes('"msg":"request"') && line.includes('"path":"/healthz"'));
    await expect.poll(lineOf, { timeout: SAFETY_NET_MS, interval: 100 }).toBeDefined();
    expect(JSON.parse(lineOf()!)).toMatchObject({ level: 'info', status: 200 });
  });
});
