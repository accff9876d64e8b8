/**
 * `npm run data:fetch` (jobs/cli/data-fetch.ts) as a program against the real server: its
 * output, its on-disk cache, and its exit codes.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { dayOfInstant, formatDay } from '../../../../src/lib/calendar.ts';
import { COMPILE_CACHE_ENV } from '../../../helpers/compile-cache.ts';
import { freePort } from '../../../helpers/processes.ts';
import { useStatsServers } from '../../../helpers/stats-server.ts';

/** Three whole months ending two months ago: settled, and inside the seeded days. */
const now = new Date();
const RANGE = {
  from: formatDay(dayOfInstant(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 4, 1))),
  to: formatDay(dayOfInstant(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 0))),
};

/** 200 days of light synthetic traffic up to yesterday, materialized. */
const { boot, fromDatabase } = useStatsServers({ days: 200, seed: 5 });

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run the command as `npm run data:fetch` does (this Node, the file itself), without DATA_API_TOKEN unless given. */
function dataFetch(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const { DATA_API_TOKEN: _ignored, ...inherited } = process.env;
    const child = spawn(process.execPath, ['jobs/cli/data-fetch.ts', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...inherited, ...COMPILE_CACHE_ENV, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A URL nothing listens on: a port that was free a moment ago. */
async function deadUrl(): Promise<string> {
  return `http://127.0.0.1:${await freePort()}`;
}

describe('data:fetch', () => {
  it('prints one CSV line per day, and the second time revalidates the months kept in --cache-dir, trusting none without the server', async () => {
    const server = await boot();
    const cacheDir = join(mkdtempSync(join(tmpdir(), 'data-fetch-')), 'cache');
    const args = ['--from', RANGE.from, '--to', RANGE.to, '--base-url', server.url, '--cache-dir', cacheDir];
    const first = await dataFetch(args);
    expect(first.stderr).toMatch(/; 3 requests, 0 months from cache \(304\)/);
    expect(first.code).toBe(0);
    const expected = await fromDatabase(RANGE.from, RANGE.to);
    const lines = first.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe('date,txn_count,impr_count,service_revenue');
    expect(lines.slice(1)).toEqual(expected.map((r) => `${r.date},${r.txn_count},${r.impr_count},${r.service_revenue.toFixed(2)}`));
    expect(readdirSync(cacheDir)).toHaveLength(3);

    const second = await dataFetch(args);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    expect(second.stderr).toMatch(/; 3 requests, 3 months from cache \(304\)/);
    expect(second.stderr).not.toContain('restated');

    // A kept month may have been restated since: without the server to ask, nothing is printed.
    await server.stop();
    const gone = await dataFetch([...args, '--concurrency', '1']);
    expect(gone.code).toBe(69);
    expect(gone.stdout).toBe('');
  });

  it('prints a JSON array of the records with --format json', async () => {
    const server = await boot();
    const run = await dataFetch(['--from', RANGE.from, '--to', RANGE.to, '--base-url', server.url, '--format', 'json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual(await fromDatabase(RANGE.from, RANGE.to));
  });

  it('exits 64 with the usage on wrong flags or dates, before any request', async () => {
    const missing = await dataFetch(['--from', '2025-01-01']);
    expect(missing.code).toBe(64);
    expect(missing.stderr).toContain('data-fetch: --from and --to are both required\nusage: data-fetch --from YYYY-MM-DD');
    const dead = await deadUrl();
    const flags = await Promise.all(
      [['--format', 'xml'], ['--concurrency', 'two'], ['--verbose']].map((extra) => dataFetch(['--from', '2025-01-01', '--to', '2025-01-02', '--base-url', dead, ...extra])),
    );
    expect(flags.map((run) => `${run.code} ${run.stderr.split('\n')[0]}`)).toMatchInlineSnapshot(`
      [
        "64 data-fetch: --format must be csv or json, got "xml"",
        "64 data-fetch: --concurrency must be a whole number, got "two"",
        "64 data-fetch: Unknown option '--verbose'",
      ]
    `);
    // Nothing listens at the default URL in this test; a request would have given 69.
    const reversed = await dataFetch(['--from', '2025-02-01', '--to', '2025-01-01', '--base-url', await deadUrl()]);
    expect(reversed.code).toBe(64);
    expect(reversed.stderr.split('\n')[0]).toBe('data-fetch: --to 2025-01-01 is before --from 2025-02-01');
    const impossible = await dataFetch(['--from', '2025-02-30', '--to', '2025-03-01', '--base-url', await deadUrl()]);
    expect(impossible.code).toBe(64);
    expect(impossible.stderr.split('\n')[0]).toBe('data-fetch: --from "2025-02-30" is not a calendar date');
    expect(reversed.stdout).toBe('');
  });

  it('prints the usage on stdout and exits 0 with -h', async () => {
    const run = await dataFetch(['-h']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: data-fetch --from YYYY-MM-DD --to YYYY-MM-DD /);
    expect(run.stderr).toBe('');
  });

  it('exits 64 at once, naming the problem but never the password, for a --base-url with user:password@', async () => {
    const run = await dataFetch(['--from', RANGE.from, '--to', RANGE.from, '--base-url', 'http://user:hunter2@127.0.0.1:9/']);
    expect(run.code).toBe(64);
    expect(run.stderr.split('\n')[0]).toBe(
      'data-fetch: --base-url must not carry credentials (user:password@ in http://***@127.0.0.1:9): the data API needs none, and fetch refuses such URLs',
    );
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stdout).toBe('');
  });

  it('exits 73 with one line for a --cache-dir that cannot be created, a path under /proc included', async () => {
    // Node's recursive mkdir spun on /proc/nope at full CPU and never returned.
    const cases: Array<[string, string]> = [
      ['/proc/nope', "ENOENT: no such file or directory, mkdir '/proc/nope'"],
      ['/proc/self/nope/cache', "ENOENT: no such file or directory, mkdir '/proc/self/nope'"],
      ['/dev/null/cache', "ENOTDIR: not a directory, mkdir '/dev/null/cache'"],
    ];
    for (const [dir, reason] of cases) {
      const run = await dataFetch(['--from', RANGE.from, '--to', RANGE.from, '--base-url', await deadUrl(), '--cache-dir', dir]);
      expect(run.code, dir).toBe(73);
      expect(run.stderr, dir).toBe(`data-fetch: cannot use --cache-dir ${dir}: ${reason}\n`);
      expect(run.stdout, dir).toBe('');
    }
  });

  it('exits 69 when the server cannot be reached', async () => {
    const run = await dataFetch(['--from', RANGE.from, '--to', RANGE.from, '--base-url', await deadUrl()]);
    expect(run.code).toBe(69);
    expect(run.stderr).toMatch(/could not be reached \(fetch failed: connect ECONNREFUSED .*\) on 5 attempts/);
    expect(run.stdout).toBe('');
  });

  it('stops at once on SIGINT, even in the middle of a wait for the rate limit, and exits 130', async () => {
    // One request a minute: after the first, the command waits about a minute to send the next.
    const server = await boot({ RATE_LIMIT_DATA_MINUTE: '1' });
    const child = spawn(process.execPath, ['jobs/cli/data-fetch.ts', '--from', RANGE.from, '--to', RANGE.to, '--base-url', server.url, '--concurrency', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...COMPILE_CACHE_ENV },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    // Wait until the first request has been answered, so the command is in its pacing wait (and
    // has long set up its signal handlers). The wait is for that line, however long a busy
    // machine takes: a 5 s cap sent SIGINT before the command was ready, which killed it (null).
    await expect.poll(() => server.output.some((line) => line.includes('"path":"/api/v1/public/data"')), { timeout: 90_000, interval: 50 }).toBe(true);
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('data-fetch: interrupted by SIGINT');
  });

  it('sums up on stderr which days are final and which had no record yet', async () => {
    const server = await boot();
    const today = dayOfInstant(Date.now());
    const run = await dataFetch(['--from', formatDay(today - 6), '--to', formatDay(today), '--base-url', server.url]);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`data-fetch: days up to ${formatDay(today - 4)} are final; 1 day without a record yet (${formatDay(today)})`);
  });

  it('sends the key of DATA_API_TOKEN or --token as a Bearer token, and exits 77 without printing it when it is refused', async () => {
    // The server side of API keys, as the data API speaks it: 401 {code, message} with a Bearer challenge (RFC 6750).
    const seen: Array<string | undefined> = [];
    const fake = createServer((req, res) => {
      seen.push(req.headers.authorization);
      if (req.headers.authorization !== 'Bearer good.key-1') {
        res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer error="invalid_token"', 'cache-control': 'no-store' });
        res.end(JSON.stringify({ code: 'unauthorized', message: 'the API key is not valid' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json', 'x-data-settled-through': RANGE.to });
      res.end(JSON.stringify({ status: 'Success', data: [] }));
    });
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(fake.address() as AddressInfo).port}`;
      const args = ['--from', RANGE.from, '--to', RANGE.from, '--base-url', url];
      const refused = await dataFetch(args, { DATA_API_TOKEN: 'sekrit-key-123' });
      expect(refused.code).toBe(77);
      expect(refused.stderr.trimEnd().split('\n').at(-1)).toBe(
        'data-fetch: the data API refused the API token (401): the API key is not valid (unauthorized, invalid_token); check --token or DATA_API_TOKEN',
      );
      expect(refused.stderr + refused.stdout).not.toContain('sekrit');
      expect(seen).toEqual(['Bearer sekrit-key-123']); // not retried

      const accepted = await dataFetch([...args, '--token', 'good.key-1'], { DATA_API_TOKEN: 'sekrit-key-123' });
      expect(accepted.code).toBe(0);
      expect(accepted.stderr).not.toContain('good.key-1');
      expect(seen.at(-1)).toBe('Bearer good.key-1');

      // An empty DATA_API_TOKEN counts as unset: no Authorization header at all.
      await dataFetch(args, { DATA_API_TOKEN: '' });
      expect(seen).toHaveLength(3);
      expect(seen.at(-1)).toBeUndefined();
    } finally {
      fake.close();
    }
  });

  it('exits 75 naming the reset time when the daily quota is spent', async () => {
    const server = await boot({ RATE_LIMIT_DATA_DAY: '1' });
    const run = await dataFetch(['--from', RANGE.from, '--to', RANGE.to, '--base-url', server.url]);
    expect(run.code).toBe(75);
    const midnight = new Date((dayOfInstant(Date.now()) + 1) * 86_400_000).toISOString().slice(0, 10);
    expect(run.stderr).toContain(`the daily request quota of the data API is spent; it resets at ${midnight}T00:00:00.000Z (00:00 UTC); run again after that`);
    expect(run.stdout).toBe('');
  });
});
