/**
 * Every command in jobs/cli, deploy/render-nginx.ts and the Lighthouse gate run as its npm
 * script runs it: one frame (runCli) for help, flags and exit codes, and help that never acts.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { COMPILE_CACHE_ENV } from '../../../helpers/compile-cache.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';

const execFileAsync = promisify(execFile);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

async function command(script: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [script, ...args], { env: { PATH: process.env['PATH'] ?? '', ...COMPILE_CACHE_ENV, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const COMMANDS = [
  'jobs/cli/contact-erase.ts',
  'jobs/cli/api-keys.ts',
  'jobs/cli/backup.ts',
  'jobs/cli/backup-verify.ts',
  'jobs/cli/contact-export.ts',
  'jobs/cli/data-fetch.ts',
  'jobs/cli/events-import.ts',
  'jobs/cli/migrate.ts',
  'jobs/cli/news-new.ts',
  'jobs/cli/restore.ts',
  'jobs/cli/sellers-verify.ts',
  'jobs/cli/seed.ts',
  'jobs/cli/stats-materialize.ts',
  'deploy/render-nginx.ts',
  'test/e2e/browser/lighthouse-run.ts',
];

const NEWS_DIR = join(import.meta.dirname, '..', '..', '..', '..', 'content', 'news');

/**
 * Run a command with a fresh DATABASE_URL; report whether it created the database or any file in
 * content/news (news:new writes there), and remove what it created.
 */
async function commandLeavingTraces(script: string, args: string[]): Promise<Run & { createdDatabase: boolean; createdArticles: string[] }> {
  const database = tempSqliteUrl();
  const before = new Set(readdirSync(NEWS_DIR));
  const run = await command(script, args, { DATABASE_URL: database });
  const createdArticles = readdirSync(NEWS_DIR).filter((name) => !before.has(name));
  for (const name of createdArticles) rmSync(join(NEWS_DIR, name));
  return { ...run, createdDatabase: existsSync(database), createdArticles };
}

describe.each(COMMANDS)('%s', (script) => {
  it.each(['--help', '-h'])('prints its usage for %s and exits 0 without acting', async (flag) => {
    const run = await commandLeavingTraces(script, [flag]);
    expect(run).toMatchObject({ code: 0, stderr: '', createdDatabase: false, createdArticles: [] });
    expect(run.stdout).toMatch(/^usage: /);
  });

  it('exits 64 with the usage on stderr for an unknown flag, without acting', async () => {
    const run = await commandLeavingTraces(script, ['--no-such-flag']);
    expect(run).toMatchObject({ code: 64, stdout: '', createdDatabase: false, createdArticles: [] });
    expect(run.stderr).toMatch(/^[a-z-]+: Unknown option '--no-such-flag'[^\n]*\nusage: [^\n]+\n$/);
  });
});

describe('news:new', () => {
  it('does not write content/news/help.md for `npm run news:new -- --help`', async () => {
    const run = await commandLeavingTraces('jobs/cli/news-new.ts', ['--help']);
    expect(run.createdArticles).toEqual([]);
    expect(run.stdout).toContain('usage: npm run news:new -- [--at DATE-TIME] "Heading of the article"');
  });
});

describe('exit codes of the database commands', () => {
  it('exits 78 with one line naming the variable, and no stack, on a configuration error', async () => {
    const run = await command('jobs/cli/migrate.ts', [], { SQLITE_SYNCHRONOUS: 'OFF' });
    expect(run.code).toBe(78);
    expect(run.stderr).toMatchInlineSnapshot(`
      "migrate: invalid configuration: SQLITE_SYNCHRONOUS: Invalid option: expected one of "NORMAL"|"FULL" (got "OFF") (see README.md, "Configuration")
      "
    `);
  });

  it('exits 78 at once for a SQLite path whose directory cannot exist, instead of spinning on it', async () => {
    for (const path of ['/proc/x/site.db', '/no-such-dir-here/site.db']) {
      const run = await command('jobs/cli/migrate.ts', [], { DATABASE_URL: path });
      expect(run.code, path).toBe(78);
      expect(run.stderr.trim().split('\n'), path).toHaveLength(1);
    }
  });

  it('exits 69 (EX_UNAVAILABLE) with one line when the database cannot be reached: refused or unknown host', async () => {
    const refused = await command('jobs/cli/stats-materialize.ts', ['--missing'], { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' });
    expect(refused.code).toBe(69);
    expect(refused.stderr).toBe('stats-materialize: the database at DATABASE_URL (postgres://***@127.0.0.1:1/nothing) cannot be reached: connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED)\n');
    const unknown = await command('jobs/cli/migrate.ts', [], { DATABASE_URL: 'postgres://postgres@no-such-host.invalid:5432/site' });
    expect(unknown.code).toBe(69);
    expect(unknown.stderr).toMatch(/^migrate: the database at DATABASE_URL \(postgres:\/\/\*\*\*@no-such-host\.invalid:5432\/site\) cannot be reached: .+ \((ENOTFOUND|EAI_AGAIN)\)\n$/);
  });

  it('runs with a bad server-only variable (PORT=abc): a command validates only what it reads', async () => {
    const run = await command('jobs/cli/migrate.ts', [], { DATABASE_URL: tempSqliteUrl(), PORT: 'abc', TRUST_PROXY: 'true' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
  });

  it('exits 70 (EX_SOFTWARE) with one line, no stack, when a migration fails', async () => {
    const file = tempSqliteUrl();
    const db = new Database(file);
    db.exec('create table event (unrelated text)'); // the first migration creates it, with another shape
    db.close();
    const run = await command('jobs/cli/migrate.ts', [], { DATABASE_URL: file });
    expect(run.code).toBe(70);
    expect(run.stderr).toMatch(/^migrate: opening and migrating sqlite:.+ failed: .*already exists[^\n]*\n$/);
  });

  it('exits 75 (EX_TEMPFAIL) when the SQLite file stays locked past the lock budget', async () => {
    const file = tempSqliteUrl();
    const holder = new Database(file);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const run = await command('jobs/cli/migrate.ts', [], { DATABASE_URL: file });
      expect(run.code).toBe(75);
      expect(run.stderr).toMatch(/^migrate: DATABASE_URL \(.+\) stayed locked by another connection; try again later: .+ \(SQLITE_BUSY\w*\)\n$/);
    } finally {
      holder.close();
    }
  });

  it('exits 65 from events:import when some records were refused, after storing the valid ones', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'events-import-'));
    const file = join(dir, 'events.ndjson');
    writeFileSync(
      file,
      [
        JSON.stringify({ id: 'ok-1', occurred_at: '2025-03-01T10:00:00Z', kind: 'impression' }),
        JSON.stringify({ id: 'bad-1', occurred_at: 'yesterday', kind: 'impression' }),
        JSON.stringify({ id: 'ok-2', occurred_at: '2025-03-01T11:00:00Z', kind: 'transaction', revenue: '1.50' }),
      ].join('\n'),
    );
    const env = { DATABASE_URL: join(dir, 'site.db') };
    const run = await command('jobs/cli/events-import.ts', [file], env);
    expect(run.code).toBe(65);
    expect(run.stderr).toMatch(/^line 2: /m);
    expect(run.stdout).toContain(`3 records from ${file} (ndjson): 2 inserted, 0 already present, 1 refused.`);

    writeFileSync(file, JSON.stringify({ id: 'ok-3', occurred_at: '2025-03-02T10:00:00Z', kind: 'impression' }));
    expect(await command('jobs/cli/events-import.ts', [file], env)).toMatchObject({ code: 0 });
  });

  it('migrates with `npm run migrate` and reports what it applied', async () => {
    const database = tempSqliteUrl();
    const first = await command('jobs/cli/migrate.ts', [], { DATABASE_URL: database });
    expect(first).toEqual({ code: 0, stdout: `applied: 0001-initial\napplied: 0002-health-probe\napplied: 0003-api-keys\napplied: 0004-altcha-replay\napplied: 0005-contact-email-index\napplied: 0006-contact-deliveries\napplied: 0007-console\nsqlite:${database} is up to date (7 applied now)\n`, stderr: '' });
    const again = await command('jobs/cli/migrate.ts', [], { DATABASE_URL: database });
    expect(again.stdout).toBe(`sqlite:${database} is up to date (0 applied now)\n`);
  });
});

describe('stats:materialize', () => {
  it('materializes only settled days: refuses --to today or later and --from before the first event, with 64 and nothing written', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-materialize-'));
    const file = join(dir, 'events.ndjson');
    writeFileSync(file, JSON.stringify({ id: 'e1', occurred_at: '2025-03-01T10:00:00Z', kind: 'impression' }));
    const env = { DATABASE_URL: join(dir, 'site.db') };
    expect(await command('jobs/cli/events-import.ts', [file], env)).toMatchObject({ code: 0 });
    const today = new Date().toISOString().slice(0, 10);

    for (const to of [today, '2099-01-01']) {
      const run = await command('jobs/cli/stats-materialize.ts', ['--from', '2025-03-01', '--to', to], env);
      expect(run.code, to).toBe(64);
      expect(run.stderr.split('\n')[0]).toBe(`stats-materialize: --to ${to} is not a complete day: only days before today (${today}, UTC) can be materialized, since their events may still arrive`);
    }
    const early = await command('jobs/cli/stats-materialize.ts', ['--from', '1970-01-01', '--to', '2025-03-02'], env);
    expect(early.code).toBe(64);
    expect(early.stderr.split('\n')[0]).toBe('stats-materialize: --from 1970-01-01 is before the first event, on 2025-03-01: start at 2025-03-01 or later');
    const db = new Database(env.DATABASE_URL, { readonly: true });
    try {
      expect(db.prepare('select count(*) as n from daily_stat').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }

    expect(await command('jobs/cli/stats-materialize.ts', ['--from', '2025-03-01', '--to', '2025-03-02'], env)).toMatchObject({ code: 0 });
  });

  it('is suggested by events:import only for days it accepts: never today, whose events are still arriving', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'import-advice-'));
    const file = join(dir, 'events.ndjson');
    const now = Date.now();
    writeFileSync(file, [now - 86_400_000, now].map((ms, i) => JSON.stringify({ id: `e${i}`, occurred_at: new Date(ms).toISOString(), kind: 'impression' })).join('\n'));
    const env = { DATABASE_URL: join(dir, 'site.db') };
    const imported = await command('jobs/cli/events-import.ts', [file], env);
    expect(imported.code).toBe(0);
    const suggested = /npm run stats:materialize -- (.+)\n/.exec(imported.stdout)?.[1];
    expect(suggested, imported.stdout).toMatch(/^--from \d{4}-\d\d-\d\d --to \d{4}-\d\d-\d\d$/);
    const run = await command('jobs/cli/stats-materialize.ts', suggested!.split(' '), env);
    expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/^stats-materialize: 1 days materialized/) });
  });

  it('reports progress where no terminal is attached: a line per interval with done/total and the rate, and the final figures', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stats-progress-'));
    const file = join(dir, 'events.ndjson');
    writeFileSync(file, JSON.stringify({ id: 'e1', occurred_at: '2025-01-01T10:00:00Z', kind: 'impression' }));
    const env = { DATABASE_URL: join(dir, 'site.db'), PROGRESS_INTERVAL_MS: '1' };
    expect(await command('jobs/cli/events-import.ts', [file], env)).toMatchObject({ code: 0 });
    const run = await command('jobs/cli/stats-materialize.ts', ['--from', '2025-01-01', '--to', '2025-03-31', '--batch-days', '1'], env);
    expect(run.code).toBe(0);
    const lines = run.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(5);
    for (const line of lines) expect(line).toMatch(/^materializing: \d+\/90 days \(\d+%\), \d+ days\/s, \d+\.\d s$/);
    expect(lines.at(-1)).toMatch(/^materializing: 90\/90 days \(100%\), /);
    expect(run.stderr).not.toContain('\u001b'); // no terminal control sequences (a bar) in a log
  });

  it('reports the progress of seeding while it writes events, not only while it materializes', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'seed-progress-'));
    const run = await command('jobs/cli/seed.ts', [], { DATABASE_URL: join(dir, 'site.db'), PROGRESS_INTERVAL_MS: '1' });
    expect(run.code).toBe(0);
    const writing = run.stderr.split('\n').filter((line) => line.startsWith('seed: writing events'));
    // Several lines while the events are generated and stored, ending with every day done.
    expect(writing.length).toBeGreaterThan(3);
    for (const line of writing) expect(line).toMatch(/^seed: writing events \(\d{4}-\d\d-\d\d to \d{4}-\d\d-\d\d\): \d+\/400 days \(\d+%\), \d+ days\/s, \d+\.\d s$/);
    expect(writing.at(-1)).toMatch(/: 400\/400 days \(100%\)/);
    expect(run.stderr).toMatch(/^seed: materializing: 400\/400 days/m);
  });
});
