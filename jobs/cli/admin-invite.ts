/**
 * `npm run -s admin:invite -- --name NAME [--hours N]`: print a one-time link that enrols a new
 * operator of the console with a passkey (docs/operators.md, "The console"). The first operator
 * is made this way, every further one too, and so is a way back in for someone whose passkeys
 * are gone. The link (stdout, alone) holds the invite after `#`, so it never reaches a server
 * log; only its SHA-256 is stored. It expires after --hours (default 24) and works once.
 * The link's origin is the server's: SITE_URL, or the HOST and PORT it listens on, read with
 * the server's rules. Exit codes: run-cli.ts.
 */
import { loadConfig } from '../../src/app/config.ts';
import { audit } from '../../src/features/console/audit.server.ts';
import { createInvite, DEFAULT_INVITE_HOURS } from '../../src/features/console/invites.server.ts';
import { PATHS } from '../../src/lib/paths.ts';
import { runCli, UsageError } from './run-cli.ts';

const OPTIONS = { name: { type: 'string' }, hours: { type: 'string' } } as const;
const USAGE = {
  synopsis: 'npm run -s admin:invite -- --name NAME [--hours N]',
  options: OPTIONS,
  details: [
    '  --name   who the invite is for (shown in the console and its audit log)',
    `  --hours  how long the link works (default ${DEFAULT_INVITE_HOURS}, at most 168); it works once`,
  ].join('\n'),
} as const;

/** Where the server answers: SITE_URL, or its listen address, as the server derives it. */
export function consoleOrigin(env: Record<string, string | undefined>): string {
  const pick = (name: string) => (env[name] === undefined ? {} : { [name]: env[name] });
  return loadConfig({ ...pick('SITE_URL'), ...pick('HOST'), ...pick('PORT') }).SITE_URL;
}

if (import.meta.main) {
  process.exitCode = await runCli('admin-invite', USAGE, async ({ values, db, stdout, stderr }) => {
    const name = values.name?.trim();
    if (!name) throw new UsageError('--name NAME is required (who the invite is for)');
    if (name.length > 200) throw new UsageError('--name is longer than 200 characters');
    const hoursText = values.hours ?? String(DEFAULT_INVITE_HOURS);
    if (!/^[1-9]\d{0,2}$/.test(hoursText) || Number(hoursText) > 168) throw new UsageError(`--hours must be a whole number from 1 to 168 (got "${hoursText}")`);
    const origin = consoleOrigin(process.env);
    const now = Date.now();
    const handle = await db();
    const { token, invite } = await createInvite(handle.kysely, name, now, Number(hoursText) * 3_600_000);
    await audit(handle.kysely, { at: now, actor: 'cli', action: 'invited an operator', target: name, detail: `expires ${new Date(invite.expiresAt).toISOString()}` });
    stdout.write(`${origin}${PATHS.console}/enrol/#${token}\n`);
    stderr.write(`invite for "${name}": open the link above in the browser that will hold the passkey; it works once, until ${new Date(invite.expiresAt).toISOString()}.\n`);
    if (/^\d+\.\d+\.\d+\.\d+$|^\[/.test(new URL(origin).hostname)) {
      stderr.write(`note: passkeys need a host name, not an IP address (${new URL(origin).hostname}): set SITE_URL, e.g. http://localhost:${new URL(origin).port || 80}\n`);
    }
    return 0;
  });
}
