/**
 * runCli (jobs/cli/run-cli.ts), the frame of every command, in process: flags, help, exit codes,
 * the configuration and the database it opens and closes. Spawned commands are in
 * run-cli.commands.test.ts.
 */
import { existsSync } from 'node:fs';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { CommandFailed, runCli, UsageError, type Cli, type CliIo } from '../../../../jobs/cli/run-cli.ts';
import type { DbHandle } from '../../../../src/db/create-db.ts';
import { openMigratedDb } from '../../../../src/db/open-migrated-db.ts';
import { DatabaseOpenError } from '../../../../src/db/database-open-error.ts';
import { useTempDatabase } from '../../../helpers/postgres.ts';
import { tempSqliteUrl } from '../../../helpers/server.ts';

class Collector extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: BufferEncoding, done: () => void) {
    this.text += chunk.toString('utf8');
    done();
  }
}

const USAGE = {
  synopsis: 'demo --day YYYY-MM-DD [--dry-run]',
  options: { day: { type: 'string' }, 'dry-run': { type: 'boolean' } },
  details: '  --day      the day to act on\n  --dry-run  act on nothing',
} as const;

type Main = (cli: Cli<typeof USAGE.options>) => Promise<number>;

/** Run `main` under runCli with these arguments and environment; what it printed and returned. */
async function run(argv: string[], main: Main, env: CliIo['env'] = { DATABASE_URL: ':memory:' }) {
  const stdout = new Collector();
  const stderr = new Collector();
  let called = false;
  const code = await runCli('demo', USAGE, (cli) => ((called = true), main(cli)), { argv, env, stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text, called };
}

const acts: Main = async ({ stdout }) => {
  stdout.write('acted\n');
  return 0;
};

describe('runCli', () => {
  it.each([['--help'], ['-h'], ['--day', '2025-01-01', '--help']])('prints the usage for %s and exits 0 without running the command', async (...argv) => {
    const result = await run(argv, acts);
    expect(result).toEqual({
      code: 0,
      stdout: 'usage: demo --day YYYY-MM-DD [--dry-run]\n  --day      the day to act on\n  --dry-run  act on nothing\n',
      stderr: '',
      called: false,
    });
  });

  it('exits 64 with the usage on stderr for an unknown flag, without running the command', async () => {
    expect(await run(['--day', '2025-01-01', '--force'], acts)).toEqual({
      code: 64,
      stdout: '',
      stderr: "demo: Unknown option '--force'\nusage: demo --day YYYY-MM-DD [--dry-run]\n",
      called: false,
    });
  });

  it('exits 64 for a flag without its value and for an argument the command does not take', async () => {
    const missing = await run(['--day'], acts);
    expect(missing).toMatchObject({ code: 64, called: false });
    expect(missing.stderr.split('\n')[0]).toBe("demo: Option '--day <value>' argument missing");
    const positional = await run(['today'], acts);
    expect(positional).toMatchObject({ code: 64, called: false });
    expect(positional.stderr).toMatch(/^demo: Unexpected argument 'today'/);
  });

  it('hands the command its typed flags and exits with the code it returns, a partial success included', async () => {
    const result = await run(['--day', '2025-01-01', '--dry-run'], async ({ values, positionals }) => {
      expect(values).toEqual({ day: '2025-01-01', 'dry-run': true });
      expect(positionals).toEqual([]);
      return 65;
    });
    expect(result).toEqual({ code: 65, stdout: '', stderr: '', called: true });
  });

  it('turns a UsageError from the command into exit 64 with the usage', async () => {
    const result = await run(['--day', 'yesterday'], async () => {
      throw new UsageError('--day must be YYYY-MM-DD');
    });
    expect(result).toMatchObject({ code: 64, stdout: '', stderr: 'demo: --day must be YYYY-MM-DD\nusage: demo --day YYYY-MM-DD [--dry-run]\n' });
  });

  it('exits 78 with one line naming the variable, and no stack, on a configuration error', async () => {
    const result = await run([], async ({ config }) => (config(), 0), { SQLITE_SYNCHRONOUS: 'OFF' });
    expect(result.code).toBe(78);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatchInlineSnapshot(`
      "demo: invalid configuration: SQLITE_SYNCHRONOUS: Invalid option: expected one of "NORMAL"|"FULL" (got "OFF") (see README.md, "Configuration")
      "
    `);
  });

  it('reads only the variables a command needs: a bad server-only variable such as PORT=abc does not stop it', async () => {
    const env = { DATABASE_URL: ':memory:', PORT: 'abc', TRUST_PROXY: 'true', STATS_CRON: 'never' };
    const result = await run([], async ({ config, db }) => (await db(), config().DATABASE_URL === ':memory:' ? 0 : 1), env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
  });

  it('exits with the status the cause of a CommandFailed deserves, on one line naming what stopped', async () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const locked = await run([], async () => {
      throw new CommandFailed('failed after 3 days', { cause: busy });
    });
    expect(locked).toMatchObject({ code: 75, stderr: 'demo: failed after 3 days: DATABASE_URL (:memory:) stayed locked by another connection; try again later: database is locked (SQLITE_BUSY)\n' });
    const pgLock = Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });
    expect((await run([], async () => Promise.reject(new CommandFailed('stopped early', { cause: pgLock })))).code).toBe(75);
    const gone = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect((await run([], async () => Promise.reject(new CommandFailed('stopped early', { cause: gone })))).code).toBe(69);
    // node-postgres's own connect timeout is a plain Error without a code.
    const silent = new Error('timeout exceeded when trying to connect');
    expect((await run([], async () => Promise.reject(new CommandFailed('stopped early', { cause: silent })))).code).toBe(69);
    const bug = new RangeError('no such day');
    const other = await run([], async () => Promise.reject(new CommandFailed('stopped early', { cause: bug })));
    expect(other).toMatchObject({ code: 70, stderr: 'demo: stopped early: no such day\n' });
  });

  it('exits 70 with the stack on an unexpected error', async () => {
    const result = await run([], async () => {
      throw new TypeError('a bug');
    });
    expect(result.code).toBe(70);
    expect(result.stderr).toMatch(/^demo: TypeError: a bug\n\s+at /);
  });

  it('opens DATABASE_URL migrated on first use, once, and closes it when the command is done', async () => {
    const url = tempSqliteUrl();
    let handle: DbHandle | undefined;
    const result = await run(
      [],
      async ({ db }) => {
        handle = await db();
        expect(await db()).toBe(handle);
        // Migrated: the tables are there.
        await handle.kysely.selectFrom('daily_stat').selectAll().execute();
        return 0;
      },
      { DATABASE_URL: url },
    );
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(url)).toBe(true);
    await expect(handle!.kysely.selectFrom('daily_stat').selectAll().execute()).rejects.toThrow(/destroyed/);
  });

  it('exits 69 (EX_UNAVAILABLE), as the server does, with one line naming the database when it cannot be reached', async () => {
    const result = await run([], async ({ db }) => ((await db()), 0), { DATABASE_URL: 'postgres://postgres:secret@127.0.0.1:1/nothing' });
    expect(result.code).toBe(69);
    expect(result.stderr).toBe('demo: the database at DATABASE_URL (postgres://postgres:***@127.0.0.1:1/nothing) cannot be reached: connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED)\n');
  });
});

describe('openMigratedDb', () => {
  const temp = useTempDatabase('open_migrated');

  it.each(['sqlite', 'postgres'] as const)('migrates a fresh %s database once and hands back a working handle', async (engine) => {
    const url = engine === 'sqlite' ? tempSqliteUrl() : temp().url;
    const applied: string[] = [];
    const first = await openMigratedDb({ DATABASE_URL: url }, { onMigration: (r) => applied.push(`${r.status} ${r.migrationName}`) });
    try {
      expect(first.engine).toBe(engine);
      expect(await first.kysely.selectFrom('contact_submission').selectAll().execute()).toEqual([]);
    } finally {
      await first.close();
    }
    const second = await openMigratedDb({ DATABASE_URL: url }, { onMigration: (r) => applied.push(`${r.status} ${r.migrationName}`) });
    await second.close();
    expect(applied).toEqual(['Success 0001-initial', 'Success 0002-health-probe', 'Success 0003-api-keys', 'Success 0004-altcha-replay', 'Success 0005-contact-email-index', 'Success 0006-contact-deliveries', 'Success 0007-console']);
  });

  it('throws one DatabaseOpenError naming the target and the reason when the database is unreachable', async () => {
    const error = await openMigratedDb({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/nothing' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseOpenError);
    expect((error as Error).message).toBe('opening and migrating postgres://127.0.0.1:1/nothing failed: connect ECONNREFUSED 127.0.0.1:1');
  });
});
