/**
 * The one frame of every command in jobs/cli (and deploy/render-nginx.ts, the Lighthouse gate):
 * flags, help, the configuration, the database, and what the process exits with. A command is
 * its `main`, which gets parsed flags and returns its exit code; everything else happens here,
 * the same way each time.
 *
 * Exit status follows sysexits(3), classified in src/app/exit-codes.ts like the server's:
 *   0 done · 64 usage (unknown flag, bad value; the usage goes to stderr) · 78 configuration
 *   (one line naming the variable, no stack) · 69 the database cannot be reached · 75 it stayed
 *   locked past its budget (try again) · 70 a migration failed, or a bug (message and stack) ·
 *   anything `main` returns, which is not 0 for a partial success (events:import: 65).
 * A command reads only the variables it needs (DATABASE_URL, SQLITE_SYNCHRONOUS, ERASURE_LEDGER): a server-only
 * variable such as PORT=abc never stops it.
 */
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { ConfigError, DEFAULT_DATABASE_URL, loadConfig, type Config } from '../../src/app/config.ts';
import { prepareDatabaseLocation } from '../../src/app/database-location.ts';
import { databaseFailure, EX_CONFIG, EX_USAGE } from '../../src/app/exit-codes.ts';
import type { DbHandle } from '../../src/db/create-db.ts';
import type { OpenOptions } from '../../src/db/open-migrated-db.ts';
import { unsupportedNodeLine } from '../../src/lib/node-version.ts';

/** The variables a command reads; every other one belongs to the server and is not looked at. */
const COMMAND_VARIABLES = ['DATABASE_URL', 'SQLITE_SYNCHRONOUS', 'ERASURE_LEDGER'] as const;
export type CommandConfig = Pick<Config, (typeof COMMAND_VARIABLES)[number]>;

/** Validate only the variables a command reads, with the server's own rules and messages. */
function loadCommandConfig(env: Record<string, string | undefined>): CommandConfig {
  const { DATABASE_URL, SQLITE_SYNCHRONOUS, ERASURE_LEDGER } = loadConfig(Object.fromEntries(COMMAND_VARIABLES.map((name) => [name, env[name]])));
  return { DATABASE_URL, SQLITE_SYNCHRONOUS, ERASURE_LEDGER };
}

// The one check done on import, and only on an unsupported Node.js: a command runs under
// `if (import.meta.main)`, which Node.js 23.6–24.1 load as undefined, so `runCli` would never be
// called there and the command would end silently with 0. Every command imports this module.
// (Older versions cannot load .ts at all: the npm scripts' bin/require-node.mjs reports those.)
const nodeProblem = unsupportedNodeLine(process.versions.node);
if (nodeProblem !== undefined) {
  process.stderr.write(`${nodeProblem}\n`);
  process.exit(EX_CONFIG);
}

export interface Usage<O extends ParseArgsOptionsConfig> {
  /** One line after `usage: `, e.g. `events-import FILE [--format ndjson|csv]`. */
  synopsis: string;
  /** parseArgs options; `--help`/`-h` is added. */
  options: O;
  /** Whether the command takes arguments besides flags (parseArgs refuses them otherwise). */
  positionals?: boolean;
  /** More lines for `--help` only, e.g. one per flag. */
  details?: string;
}

type Parsed<O extends ParseArgsOptionsConfig> = ReturnType<typeof parseArgs<{ args: string[]; options: O; strict: true; allowPositionals: true }>>;

export type CliValues<O extends ParseArgsOptionsConfig> = Parsed<O>['values'];

export type CliParse<O extends ParseArgsOptionsConfig> =
  | { kind: 'help' }
  | { kind: 'usage'; message: string }
  | { kind: 'run'; values: CliValues<O>; positionals: string[] };

/** Strict parseArgs with `--help`/`-h` added; a flag it does not know, or a value missing, is a usage error. */
function parseCli<O extends ParseArgsOptionsConfig>(usage: Usage<O>, args: readonly string[]): CliParse<O> {
  try {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { ...usage.options, help: { type: 'boolean', short: 'h' } },
      strict: true,
      allowPositionals: usage.positionals ?? false,
    });
    if ((values as { help?: boolean }).help === true) return { kind: 'help' };
    return { kind: 'run', values: values as CliValues<O>, positionals };
  } catch (error) {
    return { kind: 'usage', message: (error as Error).message };
  }
}

/** Thrown by a `main` for arguments that parse but make no sense: exit 64 with the usage. */
export class UsageError extends Error {
  override name = 'UsageError';
}

/**
 * Thrown by a `main` whose work stopped early (`cause`: the driver's error, e.g. a batch result's
 * `error`): one line, and the exit status the cause deserves (69, 75, or 70), never 0 or 1.
 */
export class CommandFailed extends Error {
  override name = 'CommandFailed';
}

export interface Cli<O extends ParseArgsOptionsConfig> {
  values: CliValues<O>;
  positionals: string[];
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** The variables a command reads, validated once. Throws ConfigError (exit 78). */
  config(): CommandConfig;
  /** DATABASE_URL opened and migrated on first call; closed when `main` has finished. */
  db(options?: OpenOptions): Promise<DbHandle>;
}

export interface CliIo {
  argv: readonly string[];
  env: Record<string, string | undefined>;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/**
 * Run a command and resolve with its exit code; nothing is printed that `main` did not ask for
 * except the usage, help and the one-line failures above. Callers: `if (import.meta.main)
 * process.exitCode = await runCli(...)`, so importing a command runs nothing.
 */
export async function runCli<O extends ParseArgsOptionsConfig>(
  name: string,
  usage: Usage<O>,
  main: (cli: Cli<O>) => Promise<number>,
  io: Partial<CliIo> = {},
): Promise<number> {
  const { argv = process.argv.slice(2), env = process.env, stdout = process.stdout, stderr = process.stderr } = io;
  const usageLine = `usage: ${usage.synopsis}\n`;
  const parsed = parseCli(usage, argv);
  if (parsed.kind === 'help') {
    stdout.write(`${usageLine}${usage.details ? `${usage.details.trimEnd()}\n` : ''}`);
    return 0;
  }
  if (parsed.kind === 'usage') {
    stderr.write(`${name}: ${parsed.message}\n${usageLine}`);
    return EX_USAGE;
  }

  let config: CommandConfig | undefined;
  let handle: Promise<DbHandle> | undefined;
  const loadOnce = () => (config ??= loadCommandConfig(env));
  const cli: Cli<O> = {
    values: parsed.values,
    positionals: parsed.positionals,
    stdout,
    stderr,
    config: loadOnce,
    db: (options) =>
      (handle ??= Promise.resolve().then(() => {
        // The same location check as the server's: a missing or unwritable SQLite directory is a
        // configuration error (78), never created on the fly (a path under /proc would spin).
        prepareDatabaseLocation(loadOnce().DATABASE_URL);
        // Imported here, not at the top: kysely's 257 modules cost about 0.1 s of CPU on every
        // start, and a command that never opens the database (data:fetch, --help) needs none.
        return import('../../src/db/open-migrated-db.ts').then(({ openMigratedDb }) => openMigratedDb(loadOnce(), options));
      })),
  };
  try {
    return await main(cli);
  } catch (error) {
    if (error instanceof UsageError) {
      stderr.write(`${name}: ${error.message}\n${usageLine}`);
      return EX_USAGE;
    }
    if (error instanceof ConfigError) {
      stderr.write(`${name}: invalid configuration: ${error.problems.join('; ')} (see README.md, "Configuration")\n`);
      return EX_CONFIG;
    }
    let databaseUrl = DEFAULT_DATABASE_URL;
    try {
      databaseUrl = loadOnce().DATABASE_URL;
    } catch {} // an invalid DATABASE_URL would have failed first, as ConfigError
    const failure = databaseFailure(error instanceof CommandFailed ? error.cause : error, databaseUrl);
    if (error instanceof CommandFailed) stderr.write(`${name}: ${error.message}: ${failure.line}\n`);
    else stderr.write(`${name}: ${failure.unexpected && error instanceof Error && error.stack ? error.stack : failure.line}\n`);
    return failure.exitCode;
  } finally {
    const opened = await handle?.catch(() => undefined);
    await opened?.close();
  }
}
