/**
 * Finding pg_dump/pg_restore for a server's major version with the machine's real PostgreSQL
 * programs: the server's own version is chosen, and an older or missing client is one clear line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BackupToolError, findPgTool, libpqEnv } from '../../../../src/features/backup/postgres-tools.server.ts';
import { postgresBinDir } from '../../../helpers/postgres-cluster.ts';

const installed = postgresBinDir();
const path = process.env['PATH'];
afterEach(() => {
  process.env['PATH'] = path;
});

describe('findPgTool', () => {
  it("takes the server's own major version's client", async () => {
    expect(installed).toBeDefined();
    const major = Number.parseInt(installed!.version, 10);
    const tool = await findPgTool('pg_dump', major);
    expect(tool).toMatchObject({ major, path: join(installed!.dir, 'pg_dump') });
    expect((await findPgTool('pg_restore', major)).major).toBe(major);
  });

  it('refuses a client older than the server in one line naming both versions and what to install', async () => {
    const error = await findPgTool('pg_dump', 99).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(BackupToolError);
    expect((error as Error).message).toMatch(/^pg_dump \d+\.\d+ \(\S+\) is older than the PostgreSQL server \(99\): install the PostgreSQL client programs of version 99 or newer \(Debian: apt-get install postgresql-client-99\)$/);
  });

  it('says so in one line when there is none', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'no-pg-'));
    try {
      process.env['PATH'] = empty;
      await expect(findPgTool('pg_dump', 99)).rejects.toThrow(/^pg_dump was not found: install the PostgreSQL client programs of version 99 or newer/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('libpqEnv', () => {
  it('hands the password over in PGPASSWORD, with host, port, user, database and sslmode', () => {
    const env = libpqEnv('postgres://ada:p%40ss@db.internal:5433/site?sslmode=require', undefined);
    expect(env).toMatchObject({ PGHOST: 'db.internal', PGPORT: '5433', PGUSER: 'ada', PGPASSWORD: 'p@ss', PGDATABASE: 'site', PGSSLMODE: 'require' });
  });
});
