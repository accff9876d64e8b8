/**
 * `admin:invite` and `admin:sessions` as run by an operator (real processes, a SQLite file and a
 * PostgreSQL database): the link alone on stdout, its bounds; the list of operators and live
 * sessions; ending one session by its short id, every one, and removing an operator; what names
 * nothing exits 65; each is in the audit log as `cli`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditPage } from '../../../../src/features/console/audit.server.ts';
import { addOperator } from '../../../../src/features/console/operators.server.ts';
import { createSession, sessionOf } from '../../../../src/features/console/sessions.server.ts';
import { hashToken } from '../../../../src/features/console/tokens.ts';
import { ENGINES, openTestDb, type TestDb } from '../../../helpers/contact-fixtures.ts';

const exec = promisify(execFile);
const POLICY = { idleMs: 30 * 60_000, maxMs: 12 * 3_600_000 };

async function cli(script: string, args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(process.execPath, [`jobs/cli/${script}.ts`, ...args], { env: { PATH: process.env['PATH'] ?? '', ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe.each(ENGINES)('the console CLIs on %s', (engine) => {
  let db: TestDb;
  let env: Record<string, string>;
  beforeAll(async () => {
    db = await openTestDb(engine);
    env = { DATABASE_URL: db.url, SITE_URL: 'https://console.example.com' };
  });
  afterAll(async () => {
    await db?.dispose();
  });

  it('prints an invite link alone, and refuses a missing name or a week-plus lifetime', { timeout: 90_000 }, async () => {
    const made = await cli('admin-invite', ['--name', 'Ada', '--hours', '2'], env);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/^https:\/\/console\.example\.com\/admin\/enrol\/#[A-Za-z0-9_-]{43}\n$/);
    expect(made.stderr).toContain('invite for "Ada"');
    expect(made.stderr).not.toContain('IP address');
    expect((await cli('admin-invite', [], env)).code).toBe(64);
    expect((await cli('admin-invite', ['--name', 'Ada', '--hours', '169'], env)).code).toBe(64);
    const [entry] = await auditPage(db.handle.kysely, 1);
    expect(entry).toMatchObject({ actor: 'cli', action: 'invited an operator', target: 'Ada' });
  });

  it('lists, revokes one session, all of them, and removes an operator', { timeout: 120_000 }, async () => {
    const k = db.handle.kysely;
    const now = Date.now();
    const ada = await addOperator(k, 'Ada', now);
    const grace = await addOperator(k, 'Grace', now);
    const a1 = await createSession(k, ada, now);
    const a2 = await createSession(k, ada, now);
    const g1 = await createSession(k, grace, now);
    const shortId = hashToken(a1.token).slice(0, 12);

    const listed = await cli('admin-sessions', [], env);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/^operators \(2\):\n {2}\d+ {2}Ada {2}0 passkeys {2}enrolled /);
    expect(listed.stdout).toContain(`live sessions (3):\n`);
    expect(listed.stdout).toContain(`  ${shortId}  Ada  signed in `);

    expect(await cli('admin-sessions', ['--revoke', shortId], env)).toMatchObject({ code: 0, stdout: 'ended 1 session\n' });
    expect(await sessionOf(k, a1.token, Date.now(), POLICY)).toBeUndefined();
    expect(await sessionOf(k, a2.token, Date.now(), POLICY)).toBeDefined();
    expect((await cli('admin-sessions', ['--revoke', shortId], env)).code).toBe(65);

    expect(await cli('admin-sessions', ['--remove-operator', String(grace)], env)).toMatchObject({ code: 0 });
    expect(await sessionOf(k, g1.token, Date.now(), POLICY)).toBeUndefined();
    expect((await cli('admin-sessions', ['--remove-operator', String(grace)], env)).code).toBe(65);

    expect(await cli('admin-sessions', ['--revoke', 'all'], env)).toMatchObject({ code: 0, stdout: 'ended 1 session\n' });
    expect(await sessionOf(k, a2.token, Date.now(), POLICY)).toBeUndefined();
    expect((await cli('admin-sessions', ['--revoke', 'all', '--remove-operator', '1'], env)).code).toBe(64);
    const actions = (await auditPage(k, 10)).filter((e) => e.actor === 'cli').map((e) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['revoked sessions', 'removed an operator']));
  });
});
