/**
 * `npm run -s api-keys -- create --name NAME [--minute N] [--day N]` · `list` · `revoke ID`:
 * integrator keys of the data API (docs/integrators.md, "API keys"). `create` prints the token on stdout,
 * once: only its SHA-256 is stored, so it cannot be shown again. Reads DATABASE_URL like the
 * server and brings the schema up to date first. A revoked key stops working on every instance
 * within API_KEY_CACHE_SECONDS. Exit codes: run-cli.ts; `revoke` of an id that names no key: 65
 * (EX_DATAERR, as the README's table says: the id is well-formed, the data it names is not there;
 * EX_NOINPUT is sysexits' status for an input file that cannot be read).
 */
import { EX_DATAERR } from '../../src/app/exit-codes.ts';
import { ApiKey, createKey, DEFAULT_KEY_DAY, DEFAULT_KEY_MINUTE, KeyLimit, listKeys, revokeKey } from '../../src/features/apikeys/index.ts';
import { runCli, UsageError, type Cli } from './run-cli.ts';

const OPTIONS = { name: { type: 'string' }, minute: { type: 'string' }, day: { type: 'string' } } as const;
const USAGE = {
  synopsis: 'npm run -s api-keys -- create --name NAME [--minute N] [--day N] | list | revoke ID',
  options: OPTIONS,
  positionals: true,
  details: [
    '  create   make a key and print its token (shown once; store it now)',
    `           --minute  requests per minute (default ${DEFAULT_KEY_MINUTE})`,
    `           --day     requests per UTC day (default ${DEFAULT_KEY_DAY})`,
    '  list     every key: id, name, token prefix, limits, created, state',
    '  revoke   stop a key by its id (takes effect within API_KEY_CACHE_SECONDS)',
  ].join('\n'),
} as const;

function limitOf(flag: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const parsed = KeyLimit.safeParse(text);
  if (!parsed.success) throw new UsageError(`--${flag} ${parsed.error.issues[0]?.message ?? 'is invalid'} (got "${text}")`);
  return parsed.data;
}

function day(ms: number): string {
  return new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
}

/** One line per key, columns separated by two spaces: id, name, prefix, limits, created, state. */
export function formatKey(key: ApiKey): string {
  const state = key.revokedAt === null ? 'active' : `revoked ${day(key.revokedAt)}`;
  return [key.id, key.name, `${key.tokenPrefix}...`, `${key.minuteLimit}/min`, `${key.dayLimit}/day`, `created ${day(key.createdAt)}`, state].join('  ');
}

async function apiKeys({ values, positionals, db, stdout, stderr }: Cli<typeof OPTIONS>): Promise<number> {
  const [command, ...rest] = positionals;
  switch (command) {
    case 'create': {
      const name = values.name?.trim();
      if (!name || rest.length > 0) throw new UsageError('create needs --name NAME (who the key is for) and nothing else');
      if (name.length > 200) throw new UsageError('--name is longer than 200 characters');
      const minuteLimit = limitOf('minute', values.minute, DEFAULT_KEY_MINUTE);
      const dayLimit = limitOf('day', values.day, DEFAULT_KEY_DAY);
      const { key, token } = await createKey((await db()).kysely, { name, minuteLimit, dayLimit, now: Date.now() });
      stdout.write(`${token}\n`);
      stderr.write(`key ${key.id} created for "${key.name}": ${key.minuteLimit}/min, ${key.dayLimit}/day. The token above is shown only now: store it.\n`);
      return 0;
    }
    case 'list': {
      if (rest.length > 0 || values.name !== undefined || values.minute !== undefined || values.day !== undefined) throw new UsageError('list takes no arguments');
      const keys = await listKeys((await db()).kysely);
      for (const key of keys) stdout.write(`${formatKey(key)}\n`);
      stderr.write(`${keys.length} key${keys.length === 1 ? '' : 's'}\n`);
      return 0;
    }
    case 'revoke': {
      const [idText, ...more] = rest;
      if (idText === undefined || more.length > 0 || !/^[1-9]\d{0,15}$/.test(idText)) throw new UsageError('revoke needs one key id (a whole number, from `list`)');
      const outcome = await revokeKey((await db()).kysely, Number(idText), Date.now());
      if (outcome === 'unknown') {
        stderr.write(`api-keys: no key with id ${idText} (\`npm run -s api-keys -- list\` shows the ids)\n`);
        return EX_DATAERR;
      }
      stdout.write(outcome === 'revoked' ? `key ${idText} revoked\n` : `key ${idText} was already revoked\n`);
      return 0;
    }
    default:
      throw new UsageError(command === undefined ? 'name a command: create, list or revoke' : `unknown command "${command}": use create, list or revoke`);
  }
}

if (import.meta.main) {
  process.exitCode = await runCli('api-keys', USAGE, apiKeys);
}
