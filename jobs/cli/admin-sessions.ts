/**
 * `npm run -s admin:sessions`: the console's operators and live sessions; `-- --revoke ID`
 * ends one session (ID from the list), `--revoke all` every one, `--revoke-operator ID` every
 * session of one operator, `--remove-operator ID` removes the operator with their passkeys and
 * sessions (a new invite is the way back). Takes effect on the next request on every instance:
 * sessions live in the database. Reads DATABASE_URL and the CONSOLE_SESSION_* settings like the
 * server. Exit codes: run-cli.ts; an id that names nothing: 65 (EX_DATAERR).
 */
import { loadConfig } from '../../src/app/config.ts';
import { EX_DATAERR } from '../../src/app/exit-codes.ts';
import { audit } from '../../src/features/console/audit.server.ts';
import { sessionPolicy } from '../../src/features/console/console-deps.ts';
import { listOperators, removeOperator } from '../../src/features/console/operators.server.ts';
import { liveSessions, revokeSessions } from '../../src/features/console/sessions.server.ts';
import { runCli, UsageError, type Cli } from './run-cli.ts';

const OPTIONS = { revoke: { type: 'string' }, 'revoke-operator': { type: 'string' }, 'remove-operator': { type: 'string' } } as const;
const USAGE = {
  synopsis: 'npm run -s admin:sessions -- [--revoke SESSION|all] [--revoke-operator ID] [--remove-operator ID]',
  options: OPTIONS,
  details: [
    '  (no flag)          list operators (id, name, passkeys) and live sessions (id, operator, times)',
    '  --revoke ID|all    end one live session, or all of them',
    "  --revoke-operator  end every session of the operator with this id",
    '  --remove-operator  remove the operator, their passkeys and sessions',
  ].join('\n'),
} as const;

const time = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function operatorId(text: string, flag: string): number {
  if (!/^[1-9]\d{0,15}$/.test(text)) throw new UsageError(`--${flag} needs an operator id (a whole number, from the list)`);
  return Number(text);
}

async function sessions({ values, db, stdout, stderr }: Cli<typeof OPTIONS>): Promise<number> {
  const given = [values.revoke, values['revoke-operator'], values['remove-operator']].filter((v) => v !== undefined);
  if (given.length > 1) throw new UsageError('give one of --revoke, --revoke-operator, --remove-operator');
  const pick = (name: string) => (process.env[name] === undefined ? {} : { [name]: process.env[name] });
  const policy = sessionPolicy(loadConfig({ ...pick('CONSOLE_SESSION_IDLE_MINUTES'), ...pick('CONSOLE_SESSION_MAX_HOURS') }));
  const handle = await db();
  const now = Date.now();
  if (values.revoke !== undefined) {
    const which = values.revoke === 'all' ? 'all' : { id: values.revoke.toLowerCase() };
    const ended = await revokeSessions(handle.kysely, which, now);
    if (ended === 0 && which !== 'all') {
      stderr.write(`admin:sessions: no live session ${values.revoke} (the list shows the ids)\n`);
      return EX_DATAERR;
    }
    await audit(handle.kysely, { at: now, actor: 'cli', action: 'revoked sessions', target: values.revoke, detail: plural(ended, 'session') });
    stdout.write(`ended ${plural(ended, 'session')}\n`);
    return 0;
  }
  if (values['revoke-operator'] !== undefined) {
    const id = operatorId(values['revoke-operator'], 'revoke-operator');
    const ended = await revokeSessions(handle.kysely, { operatorId: id }, now);
    await audit(handle.kysely, { at: now, actor: 'cli', action: 'revoked sessions', target: `operator ${id}`, detail: plural(ended, 'session') });
    stdout.write(`ended ${plural(ended, 'session')} of operator ${id}\n`);
    return 0;
  }
  if (values['remove-operator'] !== undefined) {
    const id = operatorId(values['remove-operator'], 'remove-operator');
    if (!(await removeOperator(handle.kysely, id))) {
      stderr.write(`admin:sessions: no operator ${id} (the list shows the ids)\n`);
      return EX_DATAERR;
    }
    await audit(handle.kysely, { at: now, actor: 'cli', action: 'removed an operator', target: `operator ${id}` });
    stdout.write(`operator ${id} removed, with their passkeys and sessions\n`);
    return 0;
  }
  const operators = await listOperators(handle.kysely);
  const live = await liveSessions(handle.kysely, now, policy);
  stdout.write(`operators (${operators.length}):\n`);
  for (const o of operators) stdout.write(`  ${o.id}  ${o.name}  ${plural(o.passkeys, 'passkey')}  enrolled ${time(o.createdAt)}\n`);
  stdout.write(`live sessions (${live.length}):\n`);
  for (const s of live) stdout.write(`  ${s.id}  ${s.operatorName}  signed in ${time(s.createdAt)}  last seen ${time(s.lastSeenAt)}\n`);
  return 0;
}

if (import.meta.main) {
  process.exitCode = await runCli('admin-sessions', USAGE, sessions);
}
