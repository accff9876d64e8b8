import { execFile } from 'node:child_process';
import { Writable } from 'node:stream';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storeSubmission, writeSubmissionsCsv } from '../../../../src/features/contact/contact.server.ts';
import { ENGINES, openTestDb, type TestDb } from '../../../helpers/contact-fixtures.ts';

const run = promisify(execFile);

function collector(): { out: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { out, text: () => Buffer.concat(chunks).toString('utf8') };
}

const JAN_31 = Date.UTC(2025, 0, 31, 23, 59, 59, 999);
const FEB_1 = Date.UTC(2025, 1, 1, 0, 0, 0, 0);

describe.each(ENGINES)('contact CSV export on %s', (engine) => {
  let db: TestDb;

  beforeAll(async () => {
    db = await openTestDb(engine);
    await storeSubmission(db.handle, { name: 'Early Bird', work_email: 'early@example.com', priority: 'standard' }, { deliver: false, now: JAN_31 });
    await storeSubmission(
      db.handle,
      {
        name: 'Doe, "Jane"',
        job_title: '=HYPERLINK("http://evil.example","click")',
        work_email: 'jane@example.com',
        priority: 'high',
        message: 'Line one,\nline "two"\r\n-3 and ünïcödé ✓',
      },
      { deliver: true, now: FEB_1 },
    );
    await storeSubmission(db.handle, { name: 'Bot', work_email: 'bot@example.com', priority: 'high' }, { deliver: true, now: FEB_1, spamReason: 'honeypot' });
  });
  afterAll(async () => {
    await db?.dispose();
  });

  it('writes a header and one properly quoted row per submission that a CSV parser reads back intact', async () => {
    const { out, text } = collector();
    expect(await writeSubmissionsCsv(db.handle, out)).toEqual({ rows: 2 });
    const csv = text();
    expect(csv.split('\r\n')[0]).toBe('id,submitted_at,name,job_title,work_email,priority,message,delivery_status,delivered_at,spam_reason');
    expect(parse(csv, { columns: true })).toEqual([
      expect.objectContaining({ submitted_at: '2025-01-31T23:59:59.999Z', name: 'Early Bird', job_title: '', message: '', delivery_status: 'none', delivered_at: '' }),
      expect.objectContaining({
        submitted_at: '2025-02-01T00:00:00.000Z',
        name: 'Doe, "Jane"',
        // Formula guard: a leading ' makes spreadsheets show the cell as text.
        job_title: `'=HYPERLINK("http://evil.example","click")`,
        work_email: 'jane@example.com',
        priority: 'high',
        message: 'Line one,\nline "two"\r\n-3 and ünïcödé ✓',
        delivery_status: 'pending',
      }),
    ]);
    expect(csv).toContain('"Doe, ""Jane"""');
  });

  it('exports only submissions from the --since day on, run as the npm script does', async () => {
    const { stdout, stderr } = await run(process.execPath, ['jobs/cli/contact-export.ts', '--since', '2025-02-01'], {
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
    });
    const records = parse(stdout, { columns: true }) as Array<Record<string, string>>;
    expect(records.map((r) => r['name'])).toEqual(['Doe, "Jane"']);
    expect(stderr).toContain('1 submission exported');
  });

  it('leaves spam out, and lists it alone with --spam, with the reason', async () => {
    const { stdout, stderr } = await run(process.execPath, ['jobs/cli/contact-export.ts', '--spam'], {
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: db.url, LOG_LEVEL: 'silent' },
    });
    expect(parse(stdout, { columns: true })).toEqual([expect.objectContaining({ name: 'Bot', delivery_status: 'none', spam_reason: 'honeypot' })]);
    expect(stderr).toContain('1 spam submission exported');
  });
});

describe('contact export command line', () => {
  it('refuses a --since that is not a calendar day, with usage and exit code 64', async () => {
    const failure = await run(process.execPath, ['jobs/cli/contact-export.ts', '--since', '2025-02-30'], {
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: ':memory:' },
    }).catch((error: { code: number; stderr: string; stdout: string }) => error);
    expect(failure).toMatchObject({ code: 64, stdout: '' });
    expect((failure as { stderr: string }).stderr).toMatchInlineSnapshot(`
      "contact-export: --since must be a calendar day written YYYY-MM-DD, e.g. 2025-01-31 (got "2025-02-30")
      usage: npm run -s contact:export -- [--since YYYY-MM-DD] [--spam] [--bom] > contacts.csv
      "
    `);
  });

  it('starts with a UTF-8 byte order mark with --bom, for Excel', async () => {
    const { stdout } = await run(process.execPath, ['jobs/cli/contact-export.ts', '--bom'], {
      env: { PATH: process.env['PATH'] ?? '', DATABASE_URL: ':memory:' },
    });
    expect(stdout.startsWith('\uFEFFid,submitted_at,')).toBe(true);
  });
});
