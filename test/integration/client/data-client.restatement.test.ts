/**
 * A restated day seen through a warm client cache, end to end on SQLite and PostgreSQL: the real
 * server (`node src/app/main.ts`), the client with its in-memory cache and `data:fetch` with its
 * on-disk one, and the operator's commands as programs (`events:import` of a late file, then
 * `stats:materialize` of the settled day). docs/restatements.md describes the protocol.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchDailyStats, type FetchLike, type StoredAnswer } from '../../../src/client/data-client.ts';
import type { NewEvent } from '../../../src/db/schema.ts';
import { materialize } from '../../../src/features/stats/materialize.server.ts';
import { insertEvents } from '../../../src/features/stats/stats.server.ts';
import { dayOfInstant, formatDay, startOfDayMs } from '../../../src/lib/calendar.ts';
import { startServer, type RunningServer } from '../../helpers/server.ts';
import { ENGINES, openTestDb, type TestDb } from '../../helpers/contact-fixtures.ts';

const execFileAsync = promisify(execFile);

const TODAY = dayOfInstant(Date.now());
/** The restated day: long settled (the server calls days up to today - 4 final). */
const DAY = TODAY - 40;
const RANGE = { from: formatDay(DAY - 3), to: formatDay(DAY + 3) };
/** 62 transactions of 2.50 on the day, 5 more in the late file: 155.00 -> 167.50. */
const BEFORE = 62;
const LATE = 5;
const CENTS = 250;

const transaction = (id: string, day: number, index: number): NewEvent => ({ id, occurred_at: startOfDayMs(day) + 3_600_000 + index * 60_000, kind: 'transaction', revenue_minor: CENTS });

/** Run a command of jobs/cli as its npm script does; it must succeed. */
async function command(script: string, args: string[], env: Record<string, string>): Promise<string> {
  const { stdout } = await execFileAsync(process.execPath, [script, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } });
  return stdout;
}

/** The platform fetch, recording the status of every answer. */
function recordingFetch() {
  const statuses: number[] = [];
  const fetch: FetchLike = async (url, init) => {
    const response = await globalThis.fetch(url, init);
    statuses.push(response.status);
    return response;
  };
  return { fetch, statuses };
}

describe.each(ENGINES)('a restated settled day on %s', (engine) => {
  let db: TestDb;
  const servers: RunningServer[] = [];
  const boot = async (env: Record<string, string> = {}) => {
    const server = await startServer({ DATABASE_URL: db.url, ...env });
    servers.push(server);
    return server;
  };

  beforeAll(async () => {
    db = await openTestDb(engine);
    const events = Array.from({ length: BEFORE }, (_, i) => transaction(`t${i}`, DAY, i));
    for (let day = DAY - 3; day <= DAY + 3; day++) if (day !== DAY) events.push(transaction(`n${day}`, day, 0));
    await db.handle.kysely.transaction().execute((trx) => insertEvents(trx, events));
    expect(await materialize({ db: db.handle }, RANGE.from, RANGE.to)).toEqual({ days: 7 });
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.stop()));
    await db?.dispose();
  });

  it(`reaches a warm client cache and data:fetch's cache dir: ${BEFORE} transactions become ${BEFORE + LATE}`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'restatement-'));
    const cacheDir = join(dir, 'cache');
    const env = { DATABASE_URL: db.url };
    const dayOf = (records: Array<{ date: string; txn_count: number; service_revenue: number }>) => records.find((record) => record.date === formatDay(DAY));
    const csvLine = (stdout: string) => stdout.split('\n').find((line) => line.startsWith(`${formatDay(DAY)},`));

    // Warm both caches; a second call is all 304s (nothing changed).
    let server = await boot();
    const cache = new Map<string, StoredAnswer>();
    const warm = await fetchDailyStats({ ...RANGE, baseUrl: server.url, cache });
    expect(dayOf(warm.records)).toMatchObject({ txn_count: BEFORE, service_revenue: 155 });
    expect(warm.settledThrough).toBe(formatDay(TODAY - 4));
    const fetchArgs = ['jobs/cli/data-fetch.ts', '--from', RANGE.from, '--to', RANGE.to, '--base-url', server.url, '--cache-dir', cacheDir];
    const cliWarm = await execFileAsync(process.execPath, fetchArgs);
    expect(csvLine(cliWarm.stdout)).toBe(`${formatDay(DAY)},${BEFORE},0,155.00`);
    const unchanged = recordingFetch();
    expect(await fetchDailyStats({ ...RANGE, baseUrl: server.url, cache, fetch: unchanged.fetch })).toEqual({ ...warm, restatedDays: [] });
    expect(unchanged.statuses.length).toBeGreaterThanOrEqual(1);
    expect(unchanged.statuses.every((status) => status === 304)).toBe(true);

    // The operator imports a late file and re-materializes the settled day.
    const late = join(dir, 'late.ndjson');
    const lateEvents = Array.from({ length: LATE }, (_, i) => transaction(`late${i}`, DAY, BEFORE + i));
    writeFileSync(late, lateEvents.map((e) => JSON.stringify({ id: e.id, occurred_at: e.occurred_at, kind: e.kind, revenue: (e.revenue_minor / 100).toFixed(2) })).join('\n'));
    await command('jobs/cli/events-import.ts', [late], env);
    const materialized = await command('jobs/cli/stats-materialize.ts', ['--from', formatDay(DAY), '--to', formatDay(DAY)], env);
    expect(materialized.split('\n').slice(1)).toEqual([
      `stats-materialize: restated ${formatDay(DAY)}: txn_count ${BEFORE} -> ${BEFORE + LATE}, service_revenue 155.00 -> 167.50`,
      'stats-materialize: 1 settled day restated (already served as final); clients that revalidate see the new figures within a minute (docs/restatements.md).',
      '',
    ]);

    // The server's response cache keeps an answer at most 60 s and another process's rewrite
    // does not purge it: a new server process stands for "a minute later". Same port: the
    // client's cache is keyed by the server's URL.
    await server.stop();
    server = await boot({ PORT: new URL(server.url).port });
    const restated = recordingFetch();
    const after = await fetchDailyStats({ ...RANGE, baseUrl: server.url, cache, fetch: restated.fetch });
    expect(dayOf(after.records)).toMatchObject({ txn_count: BEFORE + LATE, service_revenue: 167.5 });
    expect(after.restatedDays).toEqual([formatDay(DAY)]);
    expect(restated.statuses).toContain(200);
    // Only the day changed.
    expect(after.records.filter((record) => record.date !== formatDay(DAY))).toEqual(warm.records.filter((record) => record.date !== formatDay(DAY)));

    const cliAfter = await execFileAsync(process.execPath, fetchArgs);
    expect(csvLine(cliAfter.stdout)).toBe(`${formatDay(DAY)},${BEFORE + LATE},0,167.50`);
    expect(cliAfter.stderr).toContain(`data-fetch: 1 day restated by the server since cached as final, now with the new figures (${formatDay(DAY)})`);
  });
});
