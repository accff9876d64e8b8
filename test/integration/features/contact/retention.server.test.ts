/**
 * Retention and erasure of contact submissions on both engines: the purge and erase functions,
 * the scheduled purge (called with a pinned clock), and `contact:erase` as a real process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { pino } from 'pino';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { RETENTION_CRON, runRetentionPurge, startJobs } from '../../../../src/app/jobs/schedule.ts';
import { createDb } from '../../../../src/db/create-db.ts';
import { migrateToLatest } from '../../../../src/db/migrations/index.ts';
import { storeSubmission } from '../../../../src/features/contact/contact.server.ts';
import { deliverPending } from '../../../../src/features/contact/outbox.server.ts';
import { eraseSubmissionsByEmail, purgeSubmissionsBefore } from '../../../../src/features/contact/retention.server.ts';
import { MS_PER_DAY as DAY_MS } from '../../../../src/lib/calendar.ts';
import type { Services } from '../../../../src/app/services.ts';
import { startServer, tempSqliteUrl } from '../../../helpers/server.ts';
import { ENGINES, testServices, useTestDb, validPayload } from '../../../helpers/contact-fixtures.ts';

const execFileAsync = promisify(execFile);
const NOW = Date.UTC(2026, 10, 24, 0, 35, 0);

/** Every log line a logger writes, parsed. */
function capturingLog(): { log: Services['log']; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { lines, log: pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) }) };
}

async function eraseCommand(args: string[], databaseUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['jobs/cli/contact-erase.ts', ...args], { env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: databaseUrl, ERASURE_LEDGER: join(mkdtempSync(join(tmpdir(), 'ledger-')), 'erasures.ndjson') } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe.each(ENGINES)('contact retention and erasure on %s', (engine) => {
  const suite = useTestDb(engine);

  beforeEach(async () => {
    await suite.db.handle.kysely.deleteFrom('contact_submission').execute();
  });

  /** A submission made `daysAgo` days before NOW; `pending` queues it for the webhook. */
  const submit = async (daysAgo: number, overrides: { work_email?: string; pending?: boolean } = {}) => {
    const { id } = await storeSubmission(suite.db.handle, { ...validPayload, work_email: overrides.work_email ?? validPayload.work_email }, { deliver: overrides.pending ?? false, now: NOW - daysAgo * DAY_MS });
    return id;
  };
  const remaining = async () => (await suite.db.handle.kysely.selectFrom('contact_submission').select('id').orderBy('id').execute()).map((r) => r.id);

  it('purges the submissions made before the cutoff, in batches, counting the pending deliveries among them', async () => {
    const old = [await submit(40, { pending: true }), await submit(35), await submit(31, { pending: true }), await submit(30.0001)];
    const kept = [await submit(30), await submit(1, { pending: true })];
    expect(await purgeSubmissionsBefore(suite.db.handle, NOW - 30 * DAY_MS, { batchSize: 2 })).toEqual({ submissions: old.length, pendingDeliveries: 2 });
    expect(await remaining()).toEqual(kept);
    expect(await purgeSubmissionsBefore(suite.db.handle, NOW - 30 * DAY_MS)).toEqual({ submissions: 0, pendingDeliveries: 0 });
  });

  it('erases one person: every submission of the address in any letter case, and only theirs', async () => {
    await submit(3, { work_email: 'ada@example.com', pending: true });
    await submit(2, { work_email: 'Ada@Example.COM' });
    await submit(1, { work_email: 'ADA@EXAMPLE.COM', pending: true });
    const others = [await submit(1, { work_email: 'grace@example.com', pending: true }), await submit(1, { work_email: 'ada@example.org' })];
    expect(await eraseSubmissionsByEmail(suite.db.handle, ' aDa@example.com ')).toEqual({ submissions: 3, pendingDeliveries: 2 });
    expect(await remaining()).toEqual(others);
    expect(await eraseSubmissionsByEmail(suite.db.handle, 'ada@example.com')).toEqual({ submissions: 0, pendingDeliveries: 0 });
  });

  it('counts the planned deliveries still pending, of any channel, and deletes the delivery log with them', async () => {
    const waiting = await submit(3, { pending: true });
    const delivered = await submit(2, { pending: true });
    let calls = 0;
    // The first submission's webhook fails (pending, due again later), the second's is taken.
    const fetch = async () => new Response(null, { status: ++calls === 1 ? 503 : 204 });
    expect(await deliverPending({ db: suite.db.handle, webhookUrl: 'http://127.0.0.1:9/hook', fetch, now: () => NOW })).toEqual({ delivered: 1, failed: 1, gaveUp: 0 });
    expect(await suite.db.handle.kysely.selectFrom('contact_delivery').select(['submission_id', 'state']).orderBy('submission_id').execute()).toEqual([
      { submission_id: waiting, state: 'pending' },
      { submission_id: delivered, state: 'delivered' },
    ]);
    expect(await eraseSubmissionsByEmail(suite.db.handle, validPayload.work_email)).toEqual({ submissions: 2, pendingDeliveries: 1 });
    expect(await suite.db.handle.kysely.selectFrom('contact_delivery').selectAll().execute()).toEqual([]);
    expect(await suite.db.handle.kysely.selectFrom('contact_delivery_attempt').selectAll().execute()).toEqual([]);
  });

  it('never sends the erased pending deliveries', async () => {
    await submit(0, { pending: true });
    await eraseSubmissionsByEmail(suite.db.handle, validPayload.work_email);
    let posts = 0;
    const fetch = async () => {
      posts += 1;
      return new Response(null, { status: 204 });
    };
    expect(await deliverPending({ db: suite.db.handle, webhookUrl: 'http://127.0.0.1:9/hook', fetch, now: () => NOW + 1 })).toEqual({ delivered: 0, failed: 0, gaveUp: 0 });
    expect(posts).toBe(0);
  });

  it('looks the address up through the lower(work_email) index of migration 0005', async () => {
    const lookup = sql`select id from contact_submission where lower(work_email) = ${'ada@example.com'}`;
    if (engine === 'sqlite') {
      const plan = await sql<{ detail: string }>`explain query plan ${lookup}`.execute(suite.db.handle.kysely);
      expect(plan.rows.map((r) => r.detail).join('\n')).toMatch(/USING (COVERING )?INDEX contact_submission_email_lower/);
    } else {
      const plan = await suite.db.handle.kysely.connection().execute(async (connection) => {
        // An empty table is cheapest to scan: forbid that, so the plan shows whether the index can serve the lookup.
        await sql`set enable_seqscan = off`.execute(connection);
        try {
          return await sql<{ 'QUERY PLAN': string }>`explain ${lookup}`.execute(connection);
        } finally {
          await sql`reset enable_seqscan`.execute(connection);
        }
      });
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('contact_submission_email_lower');
    }
  });

  describe('the scheduled purge', () => {
    it('deletes what is older than CONTACT_RETENTION_DAYS at the pinned instant and logs the counts', async () => {
      await submit(91, { pending: true });
      await submit(90.5);
      const kept = await submit(89);
      const { log, lines } = capturingLog();
      const services = testServices(suite.db.handle, { CONTACT_RETENTION_DAYS: '90' });
      expect(await runRetentionPurge(services, log, NOW)).toEqual({ submissions: 2, pendingDeliveries: 1, before: '2026-08-26T00:35:00.000Z' });
      expect(await remaining()).toEqual([kept]);
      expect(lines).toEqual([
        expect.objectContaining({ level: 30, msg: 'contact retention purge', retentionDays: 90, before: '2026-08-26T00:35:00.000Z', submissionsDeleted: 2, pendingDeliveriesDeleted: 1 }),
      ]);
    });

    it('keeps everything when CONTACT_RETENTION_DAYS is unset', async () => {
      await submit(3650);
      const { log, lines } = capturingLog();
      expect(await runRetentionPurge(testServices(suite.db.handle), log, NOW)).toBeUndefined();
      expect(await remaining()).toHaveLength(1);
      expect(lines).toEqual([]);
    });

    it('runs once when the jobs start, then daily at RETENTION_CRON, under the job name contact-retention', async () => {
      expect(RETENTION_CRON).toBe('35 0 * * *');
      await submit(8, { pending: true });
      const kept = await submit(6);
      const { log, lines } = capturingLog();
      const jobs = startJobs({ services: { ...testServices(suite.db.handle, { CONTACT_RETENTION_DAYS: '7' }), log }, now: () => NOW });
      try {
        await jobs.ready;
      } finally {
        await jobs.stop();
      }
      expect(await remaining()).toEqual([kept]);
      expect(lines.filter((line) => line['job'] === 'contact-retention')).toEqual([
        expect.objectContaining({ msg: 'contact retention purge', submissionsDeleted: 1, pendingDeliveriesDeleted: 1 }),
      ]);
    });
  });

  describe('npm run contact:erase', () => {
    it('erases one address, case-insensitively, and says how many submissions and pending deliveries went', async () => {
      await submit(2, { work_email: 'ada@example.com', pending: true });
      await submit(1, { work_email: 'ADA@example.com' });
      const other = await submit(1, { work_email: 'grace@example.com' });
      const run = await eraseCommand(['--email', 'Ada@Example.com'], suite.db.url);
      expect(run).toEqual({
        code: 0,
        stdout: `erased 2 submissions and 1 pending delivery of Ada@Example.com (address matched case-insensitively) from ${suite.db.handle.target}\n`,
        stderr: '',
      });
      expect(await remaining()).toEqual([other]);
      expect((await eraseCommand(['--email=ada@example.com'], suite.db.url)).stdout).toMatch(/^erased 0 submissions and 0 pending deliveries of ada@example\.com /);
    });

    it.each([
      [[], 'contact-erase: --email is required\nusage: npm run contact:erase -- --email ADDRESS\n'],
      [['--email', 'ada.example.com'], 'contact-erase: --email must be an email address such as ada@example.com (got "ada.example.com")\nusage: npm run contact:erase -- --email ADDRESS\n'],
      [['--email'], "contact-erase: Option '--email <value>' argument missing\nusage: npm run contact:erase -- --email ADDRESS\n"],
    ])('exits 64 with the usage for %j, erasing nothing', async (args, stderr) => {
      const id = await submit(1);
      expect(await eraseCommand(args, suite.db.url)).toEqual({ code: 64, stdout: '', stderr });
      expect(await remaining()).toEqual([id]);
    });
  });
});

describe('contact retention without a database', () => {
  it('reports the failure instead of throwing, and the scheduled purge logs it', async () => {
    const handle = createDb('postgres://postgres@127.0.0.1:1/contact');
    try {
      const { log, lines } = capturingLog();
      const outcome = await runRetentionPurge(testServices(handle, { CONTACT_RETENTION_DAYS: '30' }), log, NOW);
      expect(outcome).toMatchObject({ submissions: 0, pendingDeliveries: 0 });
      expect(String(outcome?.error)).toContain('ECONNREFUSED');
      expect(lines).toEqual([expect.objectContaining({ level: 50, msg: 'contact retention purge stopped', submissionsDeleted: 0 })]);
      expect(String((await eraseSubmissionsByEmail(handle, 'ada@example.com')).error)).toContain('ECONNREFUSED');
    } finally {
      await handle.close();
    }
  });
});

describe('the server with CONTACT_RETENTION_DAYS', () => {
  it('purges at start-up and logs the counts (and starts with a valid CONTACT_WEBHOOK_SECRET)', async () => {
    const database = tempSqliteUrl();
    const handle = createDb(database);
    try {
      expect((await migrateToLatest(handle.kysely, handle.engine)).error).toBeUndefined();
      await storeSubmission(handle, validPayload, { deliver: true, now: Date.now() - 31 * DAY_MS });
      await storeSubmission(handle, validPayload, { deliver: false, now: Date.now() - 29 * DAY_MS });
    } finally {
      await handle.close();
    }
    const server = await startServer({
      DATABASE_URL: database,
      JOBS_ENABLED: 'true',
      CONTACT_RETENTION_DAYS: '30',
      CONTACT_WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 1).toString('base64')}`,
    });
    try {
      const line = await vi.waitFor(() => {
        const found = server.output.find((l) => l.includes('"msg":"contact retention purge"'));
        if (!found) throw new Error('no purge logged yet');
        return JSON.parse(found) as Record<string, unknown>;
      });
      expect(line).toMatchObject({ job: 'contact-retention', retentionDays: 30, submissionsDeleted: 1, pendingDeliveriesDeleted: 1 });
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });
});
